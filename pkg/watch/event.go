package watch

import "fmt"

// EventType is the closed set of things a Watcher reports.
type EventType uint8

const (
	// Init starts a (re)list. Consumers that keep state start a new buffer.
	Init EventType = iota + 1
	// InitApply carries one object of the list in progress.
	InitApply
	// InitDone ends the list: the buffered objects are now the whole state.
	// ResourceVersion is the list's resourceVersion.
	InitDone
	// Apply carries an object that was added or modified while watching.
	Apply
	// Delete carries the last state of an object deleted while watching.
	Delete
	// Bookmark says that the state is current up to ResourceVersion; it
	// carries no object.
	Bookmark
)

var eventTypeNames = [...]string{"", "Init", "InitApply", "InitDone", "Apply", "Delete", "Bookmark"}

func (t EventType) String() string {
	if int(t) < len(eventTypeNames) && t != 0 {
		return eventTypeNames[t]
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Event is one step of the stream. Object is set for InitApply, Apply and
// Delete; ResourceVersion is set for every event but Init and the InitApply
// of a LIST (a streaming list's InitApply carry their object's).
type Event[T any] struct {
	Type            EventType
	Object          T
	ResourceVersion string
	// Size, on Init, is how many InitApply follow when known (a state
	// restored from a record), else 0: a hint to size a buffer by.
	Size int
}
