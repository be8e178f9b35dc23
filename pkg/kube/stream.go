package kube

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// initialEventsEndPath is the annotation that marks the bookmark ending a
// streaming list.
const initialEventsEndPath = `metadata.annotations.k8s\.io/initial-events-end`

// stream decodes a JSON watch: one {"type":...,"object":...} after another.
type stream struct {
	body   io.ReadCloser
	frames frames
	client *Client
	ep     *endpoint // what the watch was opened on
}

func newStream(body io.ReadCloser, c *Client, ep *endpoint) *stream {
	return &stream{body: body, frames: newFrames(body), client: c, ep: ep}
}

func (s *stream) Close() { s.body.Close() }

// Next implements watch.Stream. It skips the events of objects the
// client's scope does not keep (Scope.Names).
func (s *stream) Next() (watch.WatchEvent[*object.Object], error) {
	for {
		frame, err := s.frames.next()
		if err != nil {
			if err == io.EOF {
				return watch.WatchEvent[*object.Object]{}, io.EOF
			}
			return watch.WatchEvent[*object.Object]{}, fmt.Errorf("reading watch of %s: %w", s.ep.resource, err)
		}
		ev, err := s.decode(view(frame))
		if err != nil || ev.Object == nil || s.client.keeps(ev.Object) {
			return ev, err
		}
	}
}

func (s *stream) decode(frame string) (watch.WatchEvent[*object.Object], error) {
	// Two lookups rather than gjson.GetMany, which allocates its result.
	f := [2]gjson.Result{gjson.Get(frame, "type"), gjson.Get(frame, "object")}
	var ev watch.WatchEvent[*object.Object]
	switch f[0].Str {
	case "ADDED":
		ev.Type = watch.WatchAdded
	case "MODIFIED":
		ev.Type = watch.WatchModified
	case "DELETED":
		ev.Type = watch.WatchDeleted
	case "BOOKMARK":
		return decodeBookmark(f[1]), nil
	case "ERROR":
		return watch.WatchEvent[*object.Object]{Type: watch.WatchError, Err: decodeStatus(f[1])}, nil
	default:
		return ev, fmt.Errorf("unknown watch event type %q from %s", f[0].Str, s.ep.resource)
	}
	obj, err := s.decodeObject(f[1])
	if err != nil {
		return ev, fmt.Errorf("decoding a watch event of %s: %w", s.ep.resource, err)
	}
	ev.Object, ev.ResourceVersion = obj, obj.ResourceVersion
	return ev, nil
}

// decodeObject reads an event's object: the object itself, or a Table of
// one row that carries it.
func (s *stream) decodeObject(o gjson.Result) (*object.Object, error) {
	d := s.ep.decoding.forEvents()
	if o.Get("kind").Str != "Table" {
		return decodeItem(o.Raw, gjson.Result{}, d)
	}
	if cols, err := decodeColumns(o.Get("columnDefinitions")); err != nil {
		return nil, err
	} else {
		s.client.setColumns(cols)
	}
	row := o.Get("rows.0")
	if !row.Exists() {
		return nil, fmt.Errorf("table event without a row")
	}
	return decodeItem(row.Get("object").Raw, row.Get("cells"), d)
}

// decodeBookmark reads a bookmark: an object of the watched kind (or a
// Table) that carries only a resourceVersion and maybe the
// initial-events-end annotation.
func decodeBookmark(o gjson.Result) watch.WatchEvent[*object.Object] {
	if o.Get("kind").Str == "Table" && o.Get("rows.0.object").Exists() {
		o = o.Get("rows.0.object")
	}
	md := o.Get("metadata")
	return watch.WatchEvent[*object.Object]{
		Type:             watch.WatchBookmark,
		ResourceVersion:  strings.Clone(md.Get("resourceVersion").String()), // frame is reused
		InitialEventsEnd: o.Get(initialEventsEndPath).Str == "true",
	}
}

// decodeStatus turns an ERROR event's Status into an *apierrors.StatusError
// so that errors.Is/apierrors.Is* classify it.
func decodeStatus(o gjson.Result) error {
	var st metav1.Status
	if err := json.Unmarshal([]byte(o.Raw), &st); err != nil || st.Kind != "Status" {
		return fmt.Errorf("watch error event with an unreadable status: %.200s", o.Raw)
	}
	return &apierrors.StatusError{ErrStatus: st}
}
