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
//
// It also remembers where the last reconcile of each generator that ended
// well left it (done): the generator's resourceVersion it read, the one its
// status write made, and its ConfigMap's. A reconcile of the same inputs
// would write what that one wrote, so it is skipped without decoding the
// generator (idle): chiefly the reconcile that the generator's own status
// write triggers, about a third of all reconciles.
//
// It is safe for concurrent use.
type ownApplies struct {
	mu    sync.Mutex
	byKey map[store.Key]ownApply
}

type ownApply struct {
	name            string // the ConfigMap's
	resourceVersion string // the ConfigMap's
	ac              []byte // the apply configuration's JSON
	// read and wrote are the generator's resourceVersions at the end of
	// the last reconcile that ended well with the ConfigMap as recorded:
	// the one it read and the one its status write made ("" for none, or
	// when it wrote over a spec changed since the read: writtenOver).
	read, wrote string
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

// record notes that the ConfigMap name of the generator under k, at
// resourceVersion, is what applying ac (JSON) makes. It forgets where a
// reconcile left the generator: the next one that ends well says it again.
func (a *ownApplies) record(k store.Key, name, resourceVersion string, ac []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byKey == nil {
		a.byKey = map[store.Key]ownApply{}
	}
	a.byKey[k] = ownApply{name: name, resourceVersion: resourceVersion, ac: ac}
}

// done notes that a reconcile of the generator under k, which read it at
// resourceVersion read and left its ConfigMap as recorded, ended well; its
// status write made resourceVersion wrote ("" when it wrote none). Without
// a record (a dry run records none) it notes nothing.
func (a *ownApplies) done(k store.Key, read, wrote string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if last, ok := a.byKey[k]; ok && read != "" {
		last.read, last.wrote = read, wrote
		a.byKey[k] = last
	}
}

// idle reports whether a reconcile of the generator under k, now at
// resourceVersion gen, would write nothing: the last one that ended well
// read it at gen or made gen with its status write, and cm, the
// resourceVersion its ConfigMap has now ("" for none), is what it left.
// cm is asked for the ConfigMap's name only when gen matches.
//
// At the resourceVersion that reconcile read, the generator's status in the
// store is older than what it wrote; reconciling would write it again.
// The status write's own change comes next, and is idle at wrote.
func (a *ownApplies) idle(k store.Key, gen string, cm func(name string) string) bool {
	a.mu.Lock()
	last, ok := a.byKey[k]
	a.mu.Unlock()
	if !ok || gen == "" || last.read == "" || (gen != last.read && gen != last.wrote) {
		return false
	}
	return cm(last.name) == last.resourceVersion
}

// forget drops what is remembered of the generator under k, which is gone.
func (a *ownApplies) forget(k store.Key) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.byKey, k)
}
