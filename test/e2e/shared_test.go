package e2e

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// requestCounter counts the LISTs and WATCHes of one resource path that
// go through it.
type requestCounter struct {
	next     http.RoundTripper
	resource string // the path's last segment, e.g. "configmaps"

	mu             sync.Mutex
	lists, watches int
}

func (c *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/"+c.resource) {
		c.mu.Lock()
		if q := req.URL.Query(); q.Get("watch") == "1" || q.Get("watch") == "true" {
			c.watches++
		} else {
			c.lists++
		}
		c.mu.Unlock()
	}
	return c.next.RoundTrip(req)
}

func (c *requestCounter) counts() (lists, watches int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists, c.watches
}

// TestSharedReflectorOneListOneWatch: N consumers of config maps in one
// process (all namespaces and one namespace, ordered and coalescing
// subscriptions, plain reads) share one reflector: exactly one LIST and
// one WATCH on the wire, every consumer sees a change made afterwards, and
// a consumer of one namespace sees only that namespace.
func TestSharedReflectorOneListOneWatch(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "before", nil)

	counter := &requestCounter{resource: "configmaps"}
	cfg := cp.AdminConfig()
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
	rc, err := kube.NewRESTClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set := reflector.NewSet(reflector.SetOptions{NewClient: reflector.RESTClients(rc, nil)})
	configMaps := kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}

	ctx, cancel := context.WithTimeout(t.Context(), patience)
	defer cancel()
	type consumer struct {
		handle *reflector.Handle
		sub    *store.Subscription[*object.Object]
	}
	var consumers []consumer
	for i, scope := range []kube.Scope{{}, {}, {Namespace: ns}, {}, {Namespace: ns}} {
		l := set.Acquire(configMaps, scope)
		defer l.Release()
		mode := []store.Mode{store.Ordered, store.Coalescing}[i%2]
		consumers = append(consumers, consumer{handle: l, sub: l.Subscribe(ctx, store.SubscribeOptions{Mode: mode})})
	}
	handles := make([]*reflector.Handle, len(consumers))
	for i, c := range consumers {
		handles[i] = c.handle
	}
	if err := reflector.WaitForSync(ctx, handles...); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}
	if set.Len() != 1 {
		t.Errorf("the set runs %d reflectors, want 1", set.Len())
	}
	for i, c := range consumers {
		if _, ok := c.handle.Get(store.Key{Namespace: ns, Name: "before"}); !ok {
			t.Errorf("consumer %d does not hold %s/before", i, ns)
		}
	}
	for _, i := range []int{2, 4} { // the consumers of one namespace
		for _, obj := range consumers[i].handle.List() {
			if obj.Namespace != ns {
				t.Errorf("consumer %d of namespace %s lists %s/%s", i, ns, obj.Namespace, obj.Name)
			}
		}
	}

	createCM(t, cs, ns, "after", nil)
	for i, c := range consumers {
		for {
			ch, err := c.sub.Next(ctx)
			if err != nil {
				t.Fatalf("consumer %d never saw %s/after: %v", i, ns, err)
			}
			if ch.Type == store.Applied && ch.Key.Namespace != ns && (i == 2 || i == 4) {
				t.Errorf("consumer %d of namespace %s was told about %s", i, ns, ch.Key)
			}
			if ch.Type == store.Applied && ch.Key == (store.Key{Namespace: ns, Name: "after"}) {
				if ch.ResourceVersion == "" {
					t.Errorf("consumer %d: a change without a resourceVersion", i)
				}
				break
			}
		}
	}
	if lists, watches := counter.counts(); lists != 1 || watches != 1 {
		t.Errorf("%d consumers made %d LISTs and %d WATCHes of configmaps, want 1 and 1", len(consumers), lists, watches)
	}
}
