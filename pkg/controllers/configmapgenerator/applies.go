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
// JSON (which names the ConfigMap) settles a reconcile either way without
// extracting the managed fields (client-go's ExtractConfigMap, the
// reconciler's largest CPU cost once the API calls are skipped; its first
// call parses the schema of every built-in kind). Any other
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

// settled reports whether the ConfigMap of the generator under k, at
// resourceVersion, is what this controller's last apply made (known) and,
// if it is, whether that apply was of ac (JSON): applying ac would change
// nothing.
func (a *ownApplies) settled(k store.Key, resourceVersion string, ac []byte) (same, known bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	last, ok := a.byKey[k]
	if !ok || resourceVersion == "" || last.resourceVersion != resourceVersion {
		return false, false
	}
	return bytes.Equal(last.ac, ac), true
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
