package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestProfile: --profile writes a pprof file, whichever kind, and
// an unknown kind is a one-line error.
func TestProfile(t *testing.T) {
	for _, kind := range []string{"cpu", "heap", "bogus"} {
		t.Run(kind, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "profile.pprof")
			var stdout, stderr bytes.Buffer
			streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}
			root := NewCmdReflect(streams)
			root.SetArgs([]string{"version", "--profile", kind, "--profile-output", out})
			code := Execute(context.Background(), root, streams)
			if kind == "bogus" {
				if code != 1 || stderr.String() != "error: unknown --profile \"bogus\": want none, cpu or heap\n" {
					t.Errorf("exit %d, stderr %q; want 1 and one error line", code, stderr.String())
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // pprof writes gzipped protobuf
				t.Errorf("the %s profile is not a pprof file: %.20q", kind, b)
			}
		})
	}
}
