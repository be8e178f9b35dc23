package flatten

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// orderFixture is a stream of two kinds, secrets then config maps, in
// that order, printing names.
type orderFixture struct {
	t      *testing.T
	stream *Stream
	out    bytes.Buffer
	stores []*store.Store[*object.Object]
}

// testKind is a kind's Source from a store.
type testKind struct {
	res kube.Resource
	*store.Store[*object.Object]
}

func (k testKind) Resource() kube.Resource  { return k.res }
func (k testKind) Columns() []object.Column { return nil }

func newOrderFixture(ctx context.Context, t *testing.T) *orderFixture {
	f := &orderFixture{t: t, stream: New(Options{Events: map[output.EventType]bool{output.Applied: true, output.Deleted: true}})}
	for _, res := range []kube.Resource{
		{GVR: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Kind: "Secret", Namespaced: true},
		{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true},
	} {
		st := store.New(store.Options[*object.Object]{})
		f.stores = append(f.stores, st)
		k := &output.Kind{Kind: res.Kind, Version: res.GVR.Version, Resource: res.GVR.Resource, Namespaced: res.Namespaced}
		f.stream.Add(k, testKind{res: res, Store: st}, st.Subscribe(ctx, store.SubscribeOptions{Wake: f.stream.Wake()}))
	}
	return f
}

// list applies a whole list of names to the i-th kind's store.
func (f *orderFixture) list(ctx context.Context, i int, names ...string) {
	f.apply(ctx, i, watch.Event[*object.Object]{Type: watch.Init})
	for _, name := range names {
		f.apply(ctx, i, watch.Event[*object.Object]{Type: watch.InitApply, Object: f.object(i, name)})
	}
	f.apply(ctx, i, watch.Event[*object.Object]{Type: watch.InitDone, ResourceVersion: "1"})
}

func (f *orderFixture) apply(ctx context.Context, i int, ev watch.Event[*object.Object]) {
	if err := f.stores[i].Apply(ctx, ev); err != nil {
		f.t.Fatal(err)
	}
}

func (f *orderFixture) object(i int, name string) *object.Object {
	kind := []string{"Secret", "ConfigMap"}[i]
	raw := fmt.Sprintf(`{"apiVersion":"v1","kind":%q,"metadata":{"name":%q,"namespace":"ns","resourceVersion":"1"}}`, kind, name)
	obj, err := object.Decode([]byte(raw), object.Prune{})
	if err != nil {
		f.t.Fatal(err)
	}
	return obj
}

// TestKindsPrintInTheOrderGiven: a kind's initial state waits until
// the kinds before it have printed theirs, or ended for good; its changes
// wait with it, in order.
func TestKindsPrintInTheOrderGiven(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel() // on failure too: print returns
		f := newOrderFixture(ctx, t)
		printer, err := output.New(&f.out, output.Options{Format: "name"})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- f.stream.Print(ctx, printer) }()

		f.list(ctx, 1, "settings") // config maps list first...
		f.apply(ctx, 1, watch.Event[*object.Object]{Type: watch.Apply, Object: f.object(1, "later")})
		synctest.Wait()
		if f.out.Len() != 0 {
			t.Fatalf("config maps printed before secrets had listed:\n%s", f.out.String())
		}
		f.list(ctx, 0, "token") // ...and print once secrets have
		synctest.Wait()
		if got, want := f.out.String(), "secret/token\nconfigmap/settings\nconfigmap/later\n"; got != want {
			t.Errorf("printed\n%s\nwant\n%s", got, want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// TestKindsAfterAFailedOneGoOn: a kind that ended for good, never
// listed, does not hold back the kinds after it.
func TestKindsAfterAFailedOneGoOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel() // on failure too: print returns
		f := newOrderFixture(ctx, t)
		printer, err := output.New(&f.out, output.Options{Format: "name"})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- f.stream.Print(ctx, printer) }()

		f.list(ctx, 1, "settings")
		synctest.Wait()
		if f.out.Len() != 0 {
			t.Fatalf("config maps printed before secrets had listed:\n%s", f.out.String())
		}
		f.stream.End(0) // secrets: forbidden, say
		synctest.Wait()
		if got, want := f.out.String(), "configmap/settings\n"; got != want {
			t.Errorf("printed\n%s\nwant\n%s", got, want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// TestUnlisted: the kinds whose source never listed, in the order given.
func TestUnlisted(t *testing.T) {
	ctx := t.Context()
	f := newOrderFixture(ctx, t)
	f.list(ctx, 1, "settings")
	got := f.stream.Unlisted()
	if len(got) != 1 || got[0].GVR.Resource != "secrets" {
		t.Errorf("Unlisted = %v, want secrets only", got)
	}
}

// TestReplayMergesKinds: a replay (watch --since) holds every kind's
// events until each has come to its seam, then prints the states in the
// order given and the changes of both kinds in resourceVersion order;
// what comes after prints live.
func TestReplayMergesKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel() // on failure too: print returns
		f := newOrderFixture(ctx, t)
		f.stream.Replay(0, 5) // secrets: one change recorded, at 5
		f.stream.Replay(1, 6) // config maps: two, at 4 and 6
		printer, err := output.New(&f.out, output.Options{Format: "name"})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- f.stream.Print(ctx, printer) }()

		f.list(ctx, 1, "settings")
		f.change(ctx, 1, "c4", "4")
		f.change(ctx, 1, "c6", "6")
		f.list(ctx, 0, "token")
		synctest.Wait()
		if f.out.Len() != 0 {
			t.Fatalf("printed before the secrets' replay came to its seam:\n%s", f.out.String())
		}
		f.change(ctx, 0, "s5", "5")
		synctest.Wait()
		if got, want := f.out.String(), "secret/token\nconfigmap/settings\nconfigmap/c4\nsecret/s5\nconfigmap/c6\n"; got != want {
			t.Errorf("the replay printed\n%s\nwant\n%s", got, want)
		}
		f.out.Reset()
		f.change(ctx, 0, "live", "7")
		synctest.Wait()
		if got, want := f.out.String(), "secret/live\n"; got != want {
			t.Errorf("after the replay, printed\n%s\nwant\n%s", got, want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// change applies a watch event of the i-th kind: name at rv.
func (f *orderFixture) change(ctx context.Context, i int, name, rv string) {
	f.apply(ctx, i, watch.Event[*object.Object]{Type: watch.Apply, Object: f.object(i, name), ResourceVersion: rv})
}
