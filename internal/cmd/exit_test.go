package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/listwatch"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// TestExitCode: nil exits 0, an interruption 130 (wrapped too), anything
// else 1.
func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("boom"), 1},
		{ErrReported, 1},
		{ErrInterrupted, 130},
		{fmt.Errorf("get: %w", ErrInterrupted), 130},
		{errors.Join(ErrInterrupted, errors.New("stopping the profile")), 130},
	}
	for _, tc := range tests {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// testKind is what watch reads of a kind, from a store of configmaps that
// has listed objects named names when listed is true, and never listed
// otherwise.
type testKind struct {
	res kube.Resource
	*store.Store[*object.Object]
}

func (k testKind) Resource() kube.Resource  { return k.res }
func (k testKind) Columns() []object.Column { return nil }

func testReflector(t *testing.T, resource string, listed bool, names ...string) testKind {
	t.Helper()
	res := kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: resource}, Kind: "ConfigMap", Namespaced: true}
	k := testKind{res: res, Store: store.New(store.Options[*object.Object]{})}
	if !listed {
		return k
	}
	ctx := t.Context()
	events := []listwatch.Event[*object.Object]{{Type: listwatch.Init}}
	for _, n := range names {
		events = append(events, listwatch.Event[*object.Object]{Type: listwatch.InitApply, Object: &object.Object{Namespace: "ns", Name: n, ResourceVersion: "1"}})
	}
	events = append(events, listwatch.Event[*object.Object]{Type: listwatch.InitDone, ResourceVersion: "1"})
	for _, ev := range events {
		if err := k.Apply(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// TestNotListed: a watch that --timeout ended fails when some kind never
// listed, naming those kinds; one that ended otherwise, or listed every
// kind, does not.
func TestNotListed(t *testing.T) {
	secrets := kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Kind: "Secret", Namespaced: true}
	timedOut, cancel := context.WithTimeoutCause(t.Context(), 0, errWatchTimeout)
	defer cancel()
	<-timedOut.Done()
	canceled, cancel2 := context.WithCancel(t.Context())
	cancel2()

	err := notListed(timedOut, 3*time.Second, []kube.Resource{secrets})
	if err == nil || err.Error() != "secrets not listed within --timeout 3s" {
		t.Errorf("timed out, secrets never listed: %v", err)
	}
	if err := notListed(timedOut, 3*time.Second, nil); err != nil {
		t.Errorf("timed out, every kind listed: %v, want nil", err)
	}
	if err := notListed(canceled, 3*time.Second, []kube.Resource{secrets}); err != nil {
		t.Errorf("interrupted: %v, want nil (Ctrl-C exits 0)", err)
	}
}

// TestNoteMissing: after the first list, each name not found is told once
// on stderr, with the namespace; found names are not.
func TestNoteMissing(t *testing.T) {
	var buf bytes.Buffer
	r := testReflector(t, "configmaps", true, "here")
	noteMissing(t.Context(), r, []string{"here", "nope"}, "ns", NewReporter(&buf, false))
	if want := "configmaps \"nope\" not found in namespace ns; waiting for it to be created\n"; buf.String() != want {
		t.Errorf("stderr %q, want %q", buf.String(), want)
	}

	buf.Reset()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	noteMissing(ctx, testReflector(t, "configmaps", false), []string{"nope"}, "ns", NewReporter(&buf, false))
	if buf.Len() != 0 {
		t.Errorf("interrupted before the first list: stderr %q, want nothing", buf.String())
	}
}

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
		{"reported", fmt.Errorf("%w", ErrReported), ""},
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
