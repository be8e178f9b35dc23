package watch

import (
	"bytes"
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

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
	events := []watch.Event[*object.Object]{{Type: watch.Init}}
	for _, n := range names {
		events = append(events, watch.Event[*object.Object]{Type: watch.InitApply, Object: &object.Object{Namespace: "ns", Name: n, ResourceVersion: "1"}})
	}
	events = append(events, watch.Event[*object.Object]{Type: watch.InitDone, ResourceVersion: "1"})
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
	noteMissing(t.Context(), r, []string{"here", "nope"}, "ns", cli.NewReporter(&buf, false))
	if want := "configmaps \"nope\" not found in namespace ns; waiting for it to be created\n"; buf.String() != want {
		t.Errorf("stderr %q, want %q", buf.String(), want)
	}

	buf.Reset()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	noteMissing(ctx, testReflector(t, "configmaps", false), []string{"nope"}, "ns", cli.NewReporter(&buf, false))
	if buf.Len() != 0 {
		t.Errorf("interrupted before the first list: stderr %q, want nothing", buf.String())
	}
}
