package cmd

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestDiffErrorsExit2: diff's mistakes, those cobra finds (a flag) and
// its own, are one `error:` line and exit 2, as diff(1) and kubectl diff
// exit on an error; the other verbs' stay 1.
func TestDiffErrorsExit2(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"diff", "cm/x", "--no-such-flag"}, "error: unknown flag: --no-such-flag\n", 2},
		{[]string{"diff", "cm/x", "--at", "yesterday"}, `error: invalid --at "yesterday": want a time (2026-12-04T07:00:00Z), a duration ago (90m) or a resourceVersion` + "\n", 2},
		{[]string{"diff", "cm/x", "--at", "1h", "--ignore", "a[0"}, `error: --ignore: invalid field path "a[0": a [ after "a" is not closed` + "\n", 2},
		{[]string{"diff", "cm/x", "--at", "1h", "--at", "2h", "--at", "3h"}, "error: diff compares two moments: give --at at most twice\n", 2},
		{[]string{"diff", "cm/x"}, "error: diff compares two states: give --at T (compared with now), --at T1 --at T2, or --context A,B\n", 2},
		{[]string{"get", "cm", "--no-such-flag"}, "error: unknown flag: --no-such-flag\n", 1},
	} {
		var stderr bytes.Buffer
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &stderr}
		root := NewCmdReflect(streams)
		root.SetArgs(tt.args)
		if code := Execute(context.Background(), root, streams); code != tt.code || stderr.String() != tt.want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", strings.Join(tt.args, " "), code, stderr.String(), tt.code, tt.want)
		}
	}
}
