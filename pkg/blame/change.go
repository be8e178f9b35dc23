package blame

import (
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// Change is the revision that set a value, as blame tells it.
type Change struct {
	RV uint64
	// Time and Since are the revision's (history.Revision): when it
	// happened, or the window of a change seen late.
	Time, Since time.Time
	Op          history.Op
	// Manager is the field manager that made the revision (the history's
	// Manager), "" when not known: an Initial revision (the value was set
	// before recording began), a deletion, a change no entry tells of.
	Manager string
	// Operation and Subresource are those of the manager's managedFields
	// entry that the revision wrote (Apply or Update; status, scale or
	// ""), "" when there is none.
	Operation, Subresource string
}

// Initial says whether the value was there when the recorder first found
// its object: set before recording, by whom is not known.
func (c Change) Initial() bool { return c.Op == history.Initial }

// changeOf is the Change of revision r, prev being the object's JSON at
// the revision before (nil for none). first says r begins what the
// record holds of its object's life: unless it is a creation (Added),
// the object was found as it was (Initial) or the revisions before were
// pruned, and its values were set before r by no one the record knows.
func changeOf(r *history.Revision, prev []byte, first bool) Change {
	c := Change{RV: r.RV, Time: r.Time, Since: r.Since, Op: r.Op}
	if first && r.Op != history.Added && r.Op != history.Deleted {
		c.Op = history.Initial
	}
	if c.Op == history.Initial || c.Op == history.Deleted {
		return c
	}
	c.Manager = r.Manager
	if c.Manager != "" {
		c.Operation, c.Subresource = entryOf(r.Object, prev, c.Manager)
	}
	return c
}

// entryOf finds the managedFields entry of manager in doc that the
// change from prev wrote (one not in prev's list as it is), else its
// latest, and returns its operation and subresource.
func entryOf(doc, prev []byte, manager string) (operation, subresource string) {
	before := gjson.GetBytes(prev, "metadata.managedFields").Raw
	var at string
	written := false
	gjson.GetBytes(doc, "metadata.managedFields").ForEach(func(_, e gjson.Result) bool {
		if e.Get("manager").Str != manager {
			return true
		}
		isNew := !strings.Contains(before, e.Raw)
		t := e.Get("time").Str
		if (isNew && !written) || (isNew == written && t >= at) {
			operation, subresource, at, written = e.Get("operation").Str, e.Get("subresource").Str, t, isNew
		}
		return true
	})
	return operation, subresource
}
