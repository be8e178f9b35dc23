package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// Exit codes of Execute.
const (
	exitOK    = 0
	exitError = 1
	// exitInterrupted is a shell's code for a process ended by SIGINT
	// (128+2), which kubectl's is.
	exitInterrupted = 130
)

// errInterrupted is returned by a command that a signal ended before it was
// done and that printed nothing: a script must not read its empty output as
// "no objects". Execute exits with exitInterrupted and prints nothing.
var errInterrupted = errors.New("interrupted")

// errWatchTimeout is the cause of the context that --timeout ends.
var errWatchTimeout = errors.New("--timeout reached")

// exitCode is the process exit code for the error a command returned.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		return exitInterrupted
	}
	return exitError
}

// notListed is the error of a watch that --timeout ended before some kinds
// were ever listed (unlisted): its output does not show what exists, so it
// must not exit 0. It is nil when ctx did not end by --timeout or every
// kind listed.
func notListed(ctx context.Context, timeout time.Duration, unlisted []kube.Resource) error {
	if !errors.Is(context.Cause(ctx), errWatchTimeout) || len(unlisted) == 0 {
		return nil
	}
	kinds := make([]string, len(unlisted))
	for i, res := range unlisted {
		kinds[i] = res.String()
	}
	return fmt.Errorf("%s not listed within --timeout %s", strings.Join(kinds, ", "), timeout)
}
