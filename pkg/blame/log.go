package blame

import (
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Entry is a value a field took: the change that set it (or removed it,
// or deleted its object) and the value before.
type Entry struct {
	Change
	// Value and Previous are JSON; nil when the field was not there
	// (removed, or its object deleted or not yet made).
	Value, Previous []byte
	// Deleted: the object was deleted (Value is nil).
	Deleted bool
}

// Log is the field at p through revs (an object's revisions, oldest
// first), newest first: an entry for each revision that gave it a value
// other than the one before, removed it, or deleted its object while it
// had one. A revision whose object lacks the field, after one that had
// it, removed it.
func Log(revs []history.Revision, p object.Path) []Entry {
	var (
		out     []Entry
		value   []byte // the field's value before, nil when not there
		prevDoc []byte // the object's JSON before, nil after a deletion
	)
	for i := range revs {
		r := &revs[i]
		if r.Op == history.Deleted {
			if value != nil {
				out = append(out, Entry{Change: changeOf(r, nil, false), Previous: value, Deleted: true})
			}
			value, prevDoc = nil, nil
			continue
		}
		var cur []byte
		if v, ok := p.Lookup(r.Object); ok {
			cur = []byte(v.Raw)
		}
		if r.Op.Appeared() {
			prevDoc = nil
		}
		if !sameValue(cur, value) {
			out = append(out, Entry{Change: changeOf(r, prevDoc, prevDoc == nil), Value: cur, Previous: value})
		}
		value, prevDoc = cur, r.Object
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// sameValue says whether two values (JSON, nil: none) are the same: the
// API server writes a value's JSON alike each time.
func sameValue(a, b []byte) bool {
	return (a == nil) == (b == nil) && string(a) == string(b)
}
