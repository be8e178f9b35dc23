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

// ExitStatus is an error that ends the process with Code rather than 1:
// diff's, as diff(1) and kubectl diff exit, 1 for "different" and 2 for
// an error. Execute prints Err as it prints any error, once; an Err that
// is ErrReported prints nothing (see Exit).
type ExitStatus struct {
	Code int
	Err  error
}

func (e *ExitStatus) Error() string { return e.Err.Error() }
func (e *ExitStatus) Unwrap() error { return e.Err }

// Exit is the error of a command that says what it has to say on stdout
// and ends with code: Execute prints nothing (diff's 1, "different").
func Exit(code int) error { return &ExitStatus{Code: code, Err: ErrReported} }

// WithExitCode is err ending the process with code, unless err already
// says its code (an ExitStatus) or is nil.
func WithExitCode(code int, err error) error {
	if err == nil || errors.As(err, new(*ExitStatus)) {
		return err
	}
	return &ExitStatus{Code: code, Err: err}
}

// ExitCode is the process exit code for the error a command returned: 0
// for none, 130 for an interruption, an ExitStatus's code (the first
// found, joined errors too), else 1.
func ExitCode(err error) int {
	var es *ExitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, ErrInterrupted):
		return exitInterrupted
	case errors.As(err, &es):
		return es.Code
	}
	return exitError
}
