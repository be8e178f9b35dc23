package history

import (
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// A checkpoint is a resource's whole state at one resourceVersion, kept
// beside its revisions so that a state is read in a few sequential rows
// instead of one row per object (StateAt, and so a daemon's warm restart
// and get --at): the checkpoint at or before the resourceVersion asked,
// then the revisions after it. Its parts are s2 blocks of up to
// codec.PartSize bytes of entries, each entry an object's latest revision
// then: its namespace, name, resourceVersion, time, manager, JSON and
// cells (codec.Entry).
//
// The measurement: BenchmarkStateAt (100,000 ConfigMaps) reads a state
// from its checkpoint in a fraction of what the GROUP BY over every
// revision takes (the numbers are in the CHANGELOG's and the bench's).

// entryOf is what a checkpoint keeps of r.
func entryOf(r *Revision) codec.Entry {
	return codec.Entry{Namespace: r.Namespace, Name: r.Name, Manager: r.Manager, RV: r.RV, Time: r.Time, Object: r.Object, Cells: r.Cells}
}

// decodePart appends the revisions of a part to revs (Added: a state's
// objects); es is a buffer of entries it reuses, returned, as is buf, the
// one their objects and cells share.
func decodePart(revs []Revision, es []codec.Entry, buf, part []byte) ([]Revision, []codec.Entry, []byte, error) {
	es, buf, err := codec.DecodePart(es[:0], buf, part)
	for i := range es {
		e := &es[i]
		revs = append(revs, Revision{Op: Added, Namespace: e.Namespace, Name: e.Name, Manager: e.Manager, RV: e.RV, Time: e.Time, Object: e.Object, Cells: e.Cells})
	}
	return revs, es, buf, err
}
