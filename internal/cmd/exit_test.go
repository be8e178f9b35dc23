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
// of several joined errors on a line of its own, so prefixed.
func TestExecuteErrorLines(t *testing.T) {
	a, b, c := errors.New("listing configmaps: forbidden"), errors.New("listing namespaces: forbidden"), errors.New("third")
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"one", a, "error: listing configmaps: forbidden\n"},
		{"joined", errors.Join(a, b), "error: listing configmaps: forbidden\nerror: listing namespaces: forbidden\n"},
		{"nested", errors.Join(errors.Join(a, b), c), "error: listing configmaps: forbidden\nerror: listing namespaces: forbidden\nerror: third\n"},
		{"reported", fmt.Errorf("%w", cli.ErrReported), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &stderr}
			root := &cobra.Command{Use: "x", SilenceErrors: true, SilenceUsage: true, RunE: func(*cobra.Command, []string) error { return tt.err }}
			root.SetArgs(nil)
			if code := Execute(context.Background(), root, streams); code != 1 || stderr.String() != tt.want {
				t.Errorf("exit %d, stderr %q; want 1, %q", code, stderr.String(), tt.want)
			}
		})
	}
}
