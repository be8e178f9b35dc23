package history

import (
	"bytes"
	"time"

	"github.com/tidwall/sjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// leases is the resource whose changes are mostly renewals: every node
// and every leader-elected controller renews its Lease every few seconds
// (a 100-node cluster: 600 a minute, half of an idle record's growth).
const leases = "leases.v1.coordination.k8s.io"

// defaultRenewals is how often a Lease's renewal alone is kept.
const defaultRenewals = 5 * time.Minute

// renewals coalesces Leases' renewals: a change that only moves
// spec.renewTime (and the resourceVersion, and its manager's time) is
// kept at most once per interval per Lease; a change of holder, of
// acquireTime, of transitions, of anything else is always kept. The state
// the record holds of a Lease is then at most one interval behind its
// renewTime, and exact in everything else.
type renewals struct {
	every time.Duration
	kept  map[string]time.Time // when each Lease's last revision was kept
	buf   []byte               // the change and the version before it, as JSON
}

func newRenewals(res string, every time.Duration) *renewals {
	if res != leases || every < 0 {
		return nil
	}
	if every == 0 {
		every = defaultRenewals
	}
	return &renewals{every: every, kept: map[string]time.Time{}}
}

// skip says whether a change of key (obj; old the version before it) at
// `at` is a renewal within the interval of the last one kept. A change it
// does not skip is kept from then on.
func (r *renewals) skip(key string, obj, old *object.Object, at time.Time) bool {
	if r == nil {
		return false
	}
	if last, ok := r.kept[key]; ok && old != nil && at.Sub(last) < r.every {
		r.buf = obj.AppendJSON(r.buf[:0])
		n := len(r.buf)
		r.buf = old.AppendJSON(r.buf)
		if renewalOnly(r.buf[:n], r.buf[n:]) {
			return true
		}
	}
	r.kept[key] = at
	return false
}

// forget drops what skip knows of a Lease gone.
func (r *renewals) forget(key string) {
	if r != nil {
		delete(r.kept, key)
	}
}

// renewalOnly says whether two versions of a Lease differ only in what a
// renewal changes.
func renewalOnly(a, b []byte) bool {
	return bytes.Equal(withoutRenewal(a), withoutRenewal(b))
}

func withoutRenewal(doc []byte) []byte {
	for _, path := range []string{"metadata.resourceVersion", "metadata.managedFields", "spec.renewTime"} {
		if out, err := sjson.DeleteBytes(doc, path); err == nil {
			doc = out
		}
	}
	return doc
}
