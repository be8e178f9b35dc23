package cli

import (
	"errors"
)

// Exit codes of Execute.
const (
	exitOK    = 0
	exitError = 1
	// exitInterrupted is a shell's code for a process ended by SIGINT
	// (128+2), which kubectl's is.
	exitInterrupted = 130
)

// ErrInterrupted is returned by a command that a signal ended before it was
// done and that printed nothing: a script must not read its empty output as
// "no objects". Execute exits with exitInterrupted and prints nothing.
var ErrInterrupted = errors.New("interrupted")

// ExitCode is the process exit code for the error a command returned.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, ErrInterrupted):
		return exitInterrupted
	}
	return exitError
}
