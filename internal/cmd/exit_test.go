package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
)

// TestExecuteErrorLines: an error is printed once, as `error: ...`; each
// of several joined errors on a line of its own, so prefixed; an error
// with an exit code (diff's) likewise, with its code; cli.Exit prints
// nothing.
func TestExecuteErrorLines(t *testing.T) {
	a, b, c := errors.New("listing configmaps: forbidden"), errors.New("listing namespaces: forbidden"), errors.New("third")
	for _, tt := range []struct {
		name string
		err  error
		want string
		code int
	}{
		{"one", a, "error: listing configmaps: forbidden\n", 1},
		{"joined", errors.Join(a, b), "error: listing configmaps: forbidden\nerror: listing namespaces: forbidden\n", 1},
		{"nested", errors.Join(errors.Join(a, b), c), "error: listing configmaps: forbidden\nerror: listing namespaces: forbidden\nerror: third\n", 1},
		{"reported", fmt.Errorf("%w", cli.ErrReported), "", 1},
		{"exit status", cli.WithExitCode(2, errors.Join(a, b)), "error: listing configmaps: forbidden\nerror: listing namespaces: forbidden\n", 2},
		{"exit quietly", cli.Exit(1), "", 1},
		{"reported with a code", cli.WithExitCode(2, cli.ErrReported), "", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &stderr}
			root := &cobra.Command{Use: "x", SilenceErrors: true, SilenceUsage: true, RunE: func(*cobra.Command, []string) error { return tt.err }}
			root.SetArgs(nil)
			if code := Execute(context.Background(), root, streams); code != tt.code || stderr.String() != tt.want {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), tt.code, tt.want)
			}
		})
	}
}
