package serve

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// snapshot is a resource's whole state at one resourceVersion, in key
// order: what a LIST shows and a paged list continues through.
type snapshot struct {
	rv    string
	items []*object.Object
}

// snapshots keeps the snapshots that paged lists continue through, by
// resourceVersion, each until ttl after its last use, and at most
// maxSnapshots of them (the least recently used goes first). A snapshot
// costs a pointer per object: the objects are the store's.
type snapshots struct {
	ttl time.Duration
	now func() time.Time

	mu   sync.Mutex
	byRV map[string]*keptSnapshot
}

type keptSnapshot struct {
	*snapshot
	lastUse time.Time
}

const maxSnapshots = 16

func newSnapshots(ttl time.Duration, now func() time.Time) *snapshots {
	return &snapshots{ttl: ttl, now: now, byRV: map[string]*keptSnapshot{}}
}

// current is src's state now: the kept snapshot of its resourceVersion, or
// a new one (not kept: see keep).
func (s *snapshots) current(src Source) *snapshot {
	if sn, ok := s.get(src.ResourceVersion()); ok {
		return sn
	}
	items, rv := src.Snapshot()
	return &snapshot{rv: rv, items: items}
}

// get returns the kept snapshot at rv, if it has not expired.
func (s *snapshots) get(rv string) (*snapshot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	k, ok := s.byRV[rv]
	if !ok {
		return nil, false
	}
	k.lastUse = s.now()
	return k.snapshot, true
}

// keep keeps sn for a paged list to continue through.
func (s *snapshots) keep(sn *snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireLocked()
	if k, ok := s.byRV[sn.rv]; ok {
		k.lastUse = s.now()
		return
	}
	if len(s.byRV) >= maxSnapshots {
		var oldest *keptSnapshot
		for _, k := range s.byRV {
			if oldest == nil || k.lastUse.Before(oldest.lastUse) {
				oldest = k
			}
		}
		delete(s.byRV, oldest.rv)
	}
	s.byRV[sn.rv] = &keptSnapshot{snapshot: sn, lastUse: s.now()}
}

func (s *snapshots) expireLocked() {
	now := s.now()
	for rv, k := range s.byRV {
		if now.Sub(k.lastUse) > s.ttl {
			delete(s.byRV, rv)
		}
	}
}

// continueToken is what a continue parameter carries: the snapshot's
// resourceVersion and the key of the last object returned. It is encoded
// as the API server encodes its own (base64 of JSON), and is as opaque to
// clients.
type continueToken struct {
	Version string `json:"v"`
	RV      string `json:"rv"`
	Start   string `json:"start"` // the last key returned: the page starts after it
}

const tokenVersion = "meta.k8s.io/v1"

func encodeContinue(rv, last string) string {
	b, _ := json.Marshal(continueToken{Version: tokenVersion, RV: rv, Start: last})
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadContinue = errors.New("continue key is not valid")

func decodeContinue(s string) (continueToken, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return continueToken{}, errBadContinue
	}
	var t continueToken
	if err := json.Unmarshal(b, &t); err != nil || t.Version != tokenVersion || t.RV == "" {
		return continueToken{}, errBadContinue
	}
	return t, nil
}
