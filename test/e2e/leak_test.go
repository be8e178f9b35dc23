package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd"
)

// TestNoGoroutineLeak runs `watch` in this process against the real control
// plane, cancels it, and checks that every goroutine it started has ended.
func TestNoGoroutineLeak(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)
	createCM(t, cs, ns, "b", nil)
	before := goleak.IgnoreCurrent()

	for _, args := range [][]string{
		{"watch", "configmaps,secrets", "-n", ns, "-o", "json"},
		{"watch", "configmaps", "-n", ns, "--list-mode=paged"},
	} {
		out := &syncBuffer{}
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &syncBuffer{}}
		root := cmd.NewCmdReflect(streams)
		root.SetArgs(append(args, "--kubeconfig", cp.AdminKubeconfig()))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int)
		go func() { done <- cmd.Execute(ctx, root, streams) }()
		deadline := time.Now().Add(patience)
		for strings.Count(out.String(), "\n") < 2 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		createCM(t, cs, ns, "c-"+args[len(args)-1][2:4], nil) // a live event too
		time.Sleep(500 * time.Millisecond)
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("%v: exit %d, want 0", args, code)
			}
		case <-time.After(patience):
			t.Fatalf("%v: did not return after cancel", args)
		}
	}
	goleak.VerifyNone(t, before,
		// Pooled connections of client-go's shared transports outlive a
		// command by design; they are not the command's goroutines.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}
