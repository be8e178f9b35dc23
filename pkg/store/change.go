package store

import (
	"fmt"
	"time"
)

// Key identifies an object within one resource.
type Key struct {
	Namespace string
	Name      string
}

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// Object is what a Store keeps: anything with a namespace, a name and a
// resourceVersion (*object.Object, and every typed API object).
type Object interface {
	GetNamespace() string
	GetName() string
	GetResourceVersion() string
}

// KeyOf is the key of o.
func KeyOf[T Object](o T) Key { return Key{Namespace: o.GetNamespace(), Name: o.GetName()} }

// ChangeType is the closed set of notifications a subscriber receives.
type ChangeType uint8

const (
	// Applied: Object is new or changed. Old, when HasOld, is the version
	// before it: the one the subscriber saw last (Coalescing), the one the
	// store held just before (Ordered).
	Applied ChangeType = iota + 1
	// Deleted: Object is the last known state of a deleted object. Old, when
	// HasOld, is as for Applied; without it the subscriber never saw the
	// object applied (Coalescing: its creation was coalesced away; Ordered:
	// the store never held it).
	Deleted
	// Synced: everything delivered before it is the whole state of the
	// resource. It follows the first sync, a late join and every Resync.
	Synced
	// Resync: the subscriber fell too far behind and its queue was dropped.
	// Forget what you know: the whole current state follows as Applied
	// changes without Old, ended by Synced. Anything not among them is gone.
	Resync
)

var changeTypeNames = [...]string{"", "Applied", "Deleted", "Synced", "Resync"}

func (t ChangeType) String() string {
	if t != 0 && int(t) < len(changeTypeNames) {
		return changeTypeNames[t]
	}
	return fmt.Sprintf("ChangeType(%d)", uint8(t))
}

// Change is one notification. Object, Old and Key are unset for Synced and
// Resync.
type Change[T Object] struct {
	Type   ChangeType
	Key    Key
	Object T
	Old    T
	HasOld bool
	// ResourceVersion is the store's resourceVersion once the change was
	// applied: the event's for a live change, the list's for the Applied
	// changes of a relist and the store's before it for its Deleted ones
	// (they come first: see Subscription), the store's at the time for a
	// queued state and its markers.
	// A stream resumes from it.
	ResourceVersion string
	// At is when a live change (a watch event's Applied or Deleted) came
	// into the store, so that a subscriber can tell how long it waited
	// (the daemon's delivery lag). It is zero for the changes of a relist
	// and for a subscriber's queued state and markers: they are states,
	// not events that arrived at a time.
	At time.Time
	// OldUnknown (an Applied change that Backfill read from a server's
	// MODIFIED event, replayed by SubscribeFrom): the object existed before
	// the change, but its version then is unknown, so HasOld is false.
	OldUnknown bool
	// Relist is the resourceVersion of the relist that found the change
	// (an Applied or Deleted that a relist after the first list turned
	// up, not a watch event), "" for any other: whatever happened
	// between the store's resourceVersion before it and Relist is known
	// only by its outcome (a recorder marks the stretch as unseen).
	Relist string
}
