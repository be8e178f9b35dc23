package configmapgenerator

import (
	"bytes"
	"sync"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// ownApplies remembers, per generator, the apply configuration of its
// ConfigMap that this controller last applied (or found applied) and the
// ConfigMap's resourceVersion then. A ConfigMap still at that
// resourceVersion is exactly what that apply made, so the fields this
// manager owns in it are that configuration: comparing the configurations'
// JSON (which names the ConfigMap) settles applied() without extracting
// the managed fields (client-go's ExtractConfigMap, the reconciler's
// largest CPU cost once the API calls are skipped). Any other
// resourceVersion (someone else wrote since) falls back to the extraction.
// It is safe for concurrent use.
type ownApplies struct {
	mu    sync.Mutex
	byKey map[store.Key]ownApply
}

type ownApply struct {
	resourceVersion string
	ac              []byte // the apply configuration's JSON
}

// matches reports whether the ConfigMap of the generator under k, at
// resourceVersion, is what applying ac (JSON) made.
func (a *ownApplies) matches(k store.Key, resourceVersion string, ac []byte) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	last, ok := a.byKey[k]
	return ok && resourceVersion != "" && last.resourceVersion == resourceVersion && bytes.Equal(last.ac, ac)
}

// record notes that the ConfigMap of the generator under k, at
// resourceVersion, is what applying ac (JSON) makes.
func (a *ownApplies) record(k store.Key, resourceVersion string, ac []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byKey == nil {
		a.byKey = map[store.Key]ownApply{}
	}
	a.byKey[k] = ownApply{resourceVersion: resourceVersion, ac: ac}
}

// forget drops what is remembered of the generator under k, which is gone.
func (a *ownApplies) forget(k store.Key) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.byKey, k)
}
