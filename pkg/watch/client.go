package watch

import (
	"context"
	"fmt"
)

// Client lists and watches one resource (one kind, in one namespace or all,
// with fixed selectors). Implementations decode objects; the watcher never
// looks inside them.
type Client[T any] interface {
	// List returns one page. Errors from the API server must be returned as
	// *apierrors.StatusError (or wrap one) so that they can be classified.
	List(ctx context.Context, opts ListRequest) (Page[T], error)
	// Watch opens a watch. The returned Stream is closed by the watcher.
	Watch(ctx context.Context, opts WatchRequest) (Stream[T], error)
}

// ListRequest are the parameters of one LIST request.
type ListRequest struct {
	// ResourceVersion is "" for a consistent read of the latest state.
	ResourceVersion string
	Limit           int64
	Continue        string
}

// Page is one page of a LIST.
type Page[T any] struct {
	Items           []T
	ResourceVersion string
	// Continue is non-empty while more pages follow.
	Continue string
}

// WatchRequest are the parameters of one WATCH request.
type WatchRequest struct {
	ResourceVersion string
	TimeoutSeconds  int64
	// SendInitialEvents asks for a streaming list: every existing object as
	// ADDED, then a bookmark marked as the end of initial events. The Client
	// must then also send resourceVersionMatch=NotOlderThan.
	SendInitialEvents   bool
	AllowWatchBookmarks bool
}

// Stream is an open watch.
type Stream[T any] interface {
	// Next blocks for the next event. It returns io.EOF when the server ended
	// the watch cleanly, and ctx's error (or any read error) otherwise.
	Next() (WatchEvent[T], error)
	// Close releases the connection; Next then returns an error.
	Close()
}

// WatchEventType is the type field of the API server's watch events.
type WatchEventType uint8

const (
	WatchAdded WatchEventType = iota + 1
	WatchModified
	WatchDeleted
	WatchBookmark
	// WatchError carries a Status from the server in Err (410 Gone among them).
	WatchError
)

var watchEventTypeNames = [...]string{"", "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"}

func (t WatchEventType) String() string {
	if t != 0 && int(t) < len(watchEventTypeNames) {
		return watchEventTypeNames[t]
	}
	return fmt.Sprintf("WatchEventType(%d)", uint8(t))
}

// WatchEvent is one decoded event of a watch stream.
type WatchEvent[T any] struct {
	Type WatchEventType
	// Object is set for WatchAdded, WatchModified and WatchDeleted.
	Object T
	// ResourceVersion is the object's (or the bookmark's) resourceVersion.
	ResourceVersion string
	// InitialEventsEnd is true for the bookmark that ends a streaming list.
	InitialEventsEnd bool
	// Err is the server's status for WatchError, as an *apierrors.StatusError.
	Err error
}
