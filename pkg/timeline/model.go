package timeline

import (
	"iter"
	"time"
)

// MarkType is what a mark on a lane stands for.
type MarkType uint8

// The mark types, in the order a legend lists them.
const (
	// Create: the object was created while the recorder watched.
	Create MarkType = iota + 1
	// Initial: the object was there when the recorder first saw it.
	Initial
	// Spec: metadata.generation moved, or a field other than status
	// changed.
	Spec
	// Status: only the status changed.
	Status
	// Change: the object changed, and the record does not say how (a
	// history written before revisions were classified).
	Change
	// Delete: the object went away.
	Delete
	// Warning: a Warning Event about the object was recorded.
	Warning
)

// Types are the mark types, in the order a legend lists them.
var Types = []MarkType{Create, Initial, Spec, Status, Change, Delete, Warning}

// Glyph is the character plain text and terminals draw a mark of t with.
func (t MarkType) Glyph() rune {
	return [...]rune{'?', '+', 'o', '*', '.', '~', 'x', '!'}[min(int(t), int(Warning)+1)%8]
}

func (t MarkType) String() string {
	return [...]string{"unknown", "create", "initial", "spec change", "status change", "change", "delete", "warning"}[min(int(t), int(Warning)+1)%8]
}

// Precedence orders marks that share a cell: the higher is drawn.
func (t MarkType) Precedence() int {
	return [...]int{0, 5, 1, 4, 0, 3, 6, 7}[min(int(t), int(Warning)+1)%8]
}

// Mark is one revision of an object, or one Warning Event about it.
type Mark struct {
	// Time is when it happened; for a change the recorder saw late, the
	// latest it can have happened, and Since the earliest (else zero).
	Time, Since time.Time
	// RV is the revision's resourceVersion (for a Warning, the Event's).
	RV   uint64
	Type MarkType
	// Event is the Warning's reason and message (Warning marks only).
	Event *Event
}

// Event is what a Warning mark says.
type Event struct {
	Name, Reason, Message string
}

// Kind is a recorded resource as a timeline names it.
type Kind struct {
	// Resource is the record's name of it (history.ResourceName):
	// "pods.v1.", "deployments.v1.apps".
	Resource string
	// Name is how people read it: "pods", "deployments.apps".
	Name string
	// Kind is what an Event names it by (involvedObject.kind): "Pod".
	Kind       string
	Namespaced bool
}

// Lane is one object's marks, oldest first.
type Lane struct {
	Context   string
	Kind      Kind
	Namespace string
	Name      string
	Marks     []Mark
}

// Group is the lanes of one context, kind and namespace, by name.
type Group struct {
	Context   string
	Kind      Kind
	Namespace string
	Lanes     []*Lane
}

// Timeline is what a record holds of some kinds between two times.
type Timeline struct {
	// Since and Until are the times the timeline spans.
	Since, Until time.Time
	// Groups are in the order of the query's contexts and kinds, then by
	// namespace.
	Groups []*Group
	// Marks counts the marks of every lane.
	Marks int
}

// Lanes yields every lane, group by group.
func (t *Timeline) Lanes() iter.Seq[*Lane] {
	return func(yield func(*Lane) bool) {
		for _, g := range t.Groups {
			for _, l := range g.Lanes {
				if !yield(l) {
					return
				}
			}
		}
	}
}

// LaneCount is the number of lanes.
func (t *Timeline) LaneCount() int {
	n := 0
	for _, g := range t.Groups {
		n += len(g.Lanes)
	}
	return n
}
