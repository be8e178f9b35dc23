package daemon

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// serverResources reads the API server's discovery (not a cached copy):
// every resource it lists and watches, with its group and version, in its
// order (groups as it lists them, each group's preferred version first).
// A group that failed to answer (an aggregated API down) is left out.
func serverResources(ctx context.Context, dc *discovery.DiscoveryClient) ([]metav1.APIResource, error) {
	groups, lists, err := dc.ServerGroupsAndResourcesWithContext(ctx)
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("reading the server's resource types: %w", err)
	}
	byGV := map[string]*metav1.APIResourceList{}
	for _, l := range lists {
		byGV[l.GroupVersion] = l
	}
	var out []metav1.APIResource
	for _, g := range groups {
		versions := []string{g.PreferredVersion.GroupVersion}
		for _, v := range g.Versions {
			if v.GroupVersion != g.PreferredVersion.GroupVersion {
				versions = append(versions, v.GroupVersion)
			}
		}
		for _, gvs := range versions {
			l := byGV[gvs]
			gv, perr := schema.ParseGroupVersion(gvs)
			if l == nil || perr != nil {
				continue
			}
			for _, ar := range l.APIResources {
				if strings.Contains(ar.Name, "/") || !slices.Contains(ar.Verbs, "list") || !slices.Contains(ar.Verbs, "watch") {
					continue // a subresource, or not what a reflector can follow
				}
				ar.Group, ar.Version = gv.Group, gv.Version
				out = append(out, ar)
			}
		}
	}
	return out, nil
}

// discoveryOf is the server's description of res in known; a minimal one
// when known lacks it.
func discoveryOf(known []metav1.APIResource, res kube.Resource) metav1.APIResource {
	if ar, ok := serve.Discovered(known, res.GVR); ok {
		return ar
	}
	return metav1.APIResource{Name: res.GVR.Resource, Kind: res.Kind, Namespaced: res.Namespaced}
}

// onDemand is how the handler adds the kinds that clients ask for: a
// reflector on set, as those of the kinds given, of all namespaces (or of
// one, when the handler asks for one).
func (d *daemonRun) onDemand(set *reflector.Set, rc rest.Interface, dc *discovery.DiscoveryClient, known []metav1.APIResource) *serve.OnDemand {
	return &serve.OnDemand{
		Discovered: known,
		Rediscover: func(ctx context.Context) ([]metav1.APIResource, error) { return serverResources(ctx, dc) },
		Start: func(ctx context.Context, res kube.Resource, namespace string) (serve.Started, error) {
			handle := set.Acquire(res, servedScope(kube.Scope{Namespace: namespace}))
			def := definitionOf(ctx, rc, res)
			def.Source = handle
			return def, nil
		},
		Changed:     d.published.update,
		ReleaseIdle: d.cfg.ReleaseIdle,
	}
}

// DefaultReleaseIdle is Config.ReleaseIdle's default (serve
// --release-idle): a kind a client browsed once is not watched for the
// daemon's whole life after the client quit (k9s keeps a watch of each
// kind it showed while it runs), and one used every few minutes stays
// warm.
const DefaultReleaseIdle = 15 * time.Minute

// publishedInfo is the daemon's Info as published, kept true as kinds are
// added on demand or dropped, and recorded or refused.
type publishedInfo struct {
	mu   sync.Mutex
	lock *Lock // nil until published
	info Info
	rec  Info // what recording says, before it is published: Recorded, RecordsAll, Refused
}

// publish writes the kubeconfig and info in lock's files.
func (p *publishedInfo) publish(lock *Lock, kubeconfig []byte, info Info) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	info.Recorded, info.RecordsAll, info.Refused = p.rec.Recorded, p.rec.RecordsAll, p.rec.Refused
	if err := lock.Publish(kubeconfig, info); err != nil {
		return err
	}
	p.lock, p.info = lock, info
	return nil
}

// update writes the Info again with the resources cached now.
func (p *publishedInfo) update(resources []kube.Resource) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lock == nil {
		return
	}
	p.info.Resources, p.info.Kinds = resourceNames(resources)
	_ = p.lock.PublishInfo(p.info) // a client that reads the old Info finds fewer kinds: it asks the daemon all the same
}

// recording writes the Info again with what the daemon records (all: every
// kind) and what the API server refused it.
func (p *publishedInfo) recording(recorded, refused []string, all bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.Equal(p.rec.Recorded, recorded) && slices.Equal(p.rec.Refused, refused) && p.rec.RecordsAll == all {
		return // as published: each rediscovery tells it again
	}
	p.rec.Recorded, p.rec.Refused, p.rec.RecordsAll = recorded, refused, all
	if p.lock == nil {
		return
	}
	p.info.Recorded, p.info.Refused, p.info.RecordsAll = recorded, refused, all
	_ = p.lock.PublishInfo(p.info) // as update's
}

// recordsAll says whether the daemon records every kind.
func (p *publishedInfo) recordsAll() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rec.RecordsAll
}

// resourceNames are resources as daemon.Info names them.
func resourceNames(resources []kube.Resource) (names, kinds []string) {
	for _, r := range resources {
		names = append(names, ResourceName(r.GVR))
		kinds = append(kinds, r.String())
	}
	return names, kinds
}
