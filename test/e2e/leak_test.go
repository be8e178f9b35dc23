package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd"
)

// TestNoGoroutineLeak runs `watch` in this process against the real control
// plane, waits until it has printed the existing objects and a live change,
// cancels it, and checks that every goroutine it started has ended.
func TestNoGoroutineLeak(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)
	createCM(t, cs, ns, "b", nil)
	before := goleak.IgnoreCurrent()

	// printed matches the output line of a ConfigMap, in each case's format.
	tests := []struct {
		name    string
		args    []string
		printed func(name string) *regexp.Regexp
	}{{
		name: "json, two kinds",
		args: []string{"watch", "configmaps,secrets", "-n", ns, "-o", "json"},
		printed: func(name string) *regexp.Regexp {
			return regexp.MustCompile(`(?m)^\{.*"kind":"ConfigMap".*"name":"` + name + `"`)
		},
	}, {
		name:    "table, paged list",
		args:    []string{"watch", "configmaps", "-n", ns, "--list-mode=paged"},
		printed: func(name string) *regexp.Regexp { return regexp.MustCompile(`(?m)^APPLIED\s+` + name + `\s`) },
	}}
	for i, tt := range tests {
		out := newNotifyingBuffer()
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: &syncBuffer{}}
		root := cmd.NewCmdReflect(streams)
		root.SetArgs(append(tt.args, "--kubeconfig", cp.AdminKubeconfig()))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() { done <- cmd.Execute(ctx, root, streams) }()
		out.waitFor(t, tt.name+": the existing ConfigMaps a and b", tt.printed("a"), tt.printed("b"))
		live := "live-" + string(rune('0'+i))
		createCM(t, cs, ns, live, nil)
		out.waitFor(t, tt.name+": the live ConfigMap "+live, tt.printed(live))
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("%s: exit %d, want 0", tt.name, code)
			}
		case <-time.After(patience):
			t.Fatalf("%s: did not return after cancel", tt.name)
		}
	}
	goleak.VerifyNone(t, before,
		// Pooled connections of client-go's shared transports outlive a
		// command by design; they are not the command's goroutines. A
		// pooled connection's reader is parked in readLoop, or, while a
		// frame arrives (an HTTP/2 ping, a close), in its Read below it.
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}

// notifyingBuffer is a syncBuffer that signals every write, so that a test
// waits for the output it expects instead of polling.
type notifyingBuffer struct {
	syncBuffer
	written chan struct{}
}

func newNotifyingBuffer() *notifyingBuffer {
	return &notifyingBuffer{written: make(chan struct{}, 1)}
}

func (b *notifyingBuffer) Write(p []byte) (int, error) {
	n, err := b.syncBuffer.Write(p)
	select {
	case b.written <- struct{}{}:
	default:
	}
	return n, err
}

// waitFor waits until the output matches every pattern, failing the test
// after patience.
func (b *notifyingBuffer) waitFor(t *testing.T, what string, patterns ...*regexp.Regexp) {
	t.Helper()
	deadline := time.After(patience)
	for {
		out, all := b.String(), true
		for _, re := range patterns {
			all = all && re.MatchString(out)
		}
		if all {
			return
		}
		select {
		case <-b.written:
		case <-deadline:
			t.Fatalf("waiting for %s: not printed within %s; output:\n%s", what, patience, out)
		}
	}
}
