package kube

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Watch events as the API server sends them for configmaps.
const (
	evAdded    = `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns1","uid":"ua","resourceVersion":"11"},"data":{"k":"v1"}}}`
	evModified = `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns1","uid":"ua","resourceVersion":"12"},"data":{"k":"v2"}}}`
	// evDeletedNoKind has no kind: the stream adds the watched resource's.
	evDeletedNoKind = `{"type":"DELETED","object":{"metadata":{"name":"b","namespace":"ns1","uid":"ub","resourceVersion":"13"}}}`
	evTableAdded    = `{"type":"ADDED","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"14"},
		"columnDefinitions":[{"name":"Name","type":"string","format":"name","priority":0},{"name":"Data","type":"integer","format":"","priority":0}],
		"rows":[{"cells":["c",1],"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"ns2","uid":"uc","resourceVersion":"14"}}}]}}`
	// evTableModified is a later Table event: the server sends the column
	// definitions only with the first.
	evTableModified = `{"type":"MODIFIED","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"15"},"columnDefinitions":null,
		"rows":[{"cells":["c",2],"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"ns2","uid":"uc","resourceVersion":"15"}}}]}}`
	evBookmark         = `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"20","creationTimestamp":null}}}`
	evBookmarkInitEnd  = `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"21","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}}}}`
	evTableBookmark    = `{"type":"BOOKMARK","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"22"},"columnDefinitions":null,"rows":[{"cells":["",""],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"22","creationTimestamp":null}}}]}}`
	evTableBookmarkEnd = `{"type":"BOOKMARK","object":{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"23"},"columnDefinitions":null,"rows":[{"cells":["",""],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"23","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}}}}]}}`
	evExpired          = `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}}`
)

// got is what a test expects of one event.
type got struct {
	typ              watch.WatchEventType
	obj              *item
	rv               string
	initialEventsEnd bool
}

func describeEvent(t *testing.T, ev watch.WatchEvent[*object.Object]) got {
	t.Helper()
	g := got{typ: ev.Type, rv: ev.ResourceVersion, initialEventsEnd: ev.InitialEventsEnd}
	if ev.Object != nil {
		it := describe(t, ev.Object)
		g.obj = &it
	}
	return g
}

// readAll reads events until an error.
func readAll(t *testing.T, s *stream) ([]watch.WatchEvent[*object.Object], error) {
	t.Helper()
	var evs []watch.WatchEvent[*object.Object]
	for range 100 {
		ev, err := s.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	t.Fatal("the stream never ended")
	return nil, nil
}

func newTestStream(body string, c *Client) *stream {
	return newStream(io.NopCloser(strings.NewReader(body)), c, c.ep.Load())
}

// TestStream: a watch body of events, however they are separated, decodes
// into typed events, and ends with io.EOF.
func TestStream(t *testing.T) {
	events := []string{evAdded, evModified, evDeletedNoKind, evTableAdded, evTableModified, evBookmark, evBookmarkInitEnd, evTableBookmark, evTableBookmarkEnd}
	want := []got{
		{typ: watch.WatchAdded, rv: "11", obj: &item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "11"}},
		{typ: watch.WatchModified, rv: "12", obj: &item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "12"}},
		{typ: watch.WatchDeleted, rv: "13", obj: &item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "b", uid: "ub", rv: "13"}},
		{typ: watch.WatchAdded, rv: "14", obj: &item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "c", uid: "uc", rv: "14", cells: `["c",1]`}},
		{typ: watch.WatchModified, rv: "15", obj: &item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "c", uid: "uc", rv: "15", cells: `["c",2]`}},
		{typ: watch.WatchBookmark, rv: "20"},
		{typ: watch.WatchBookmark, rv: "21", initialEventsEnd: true},
		{typ: watch.WatchBookmark, rv: "22"},
		{typ: watch.WatchBookmark, rv: "23", initialEventsEnd: true},
	}
	wantCols := []object.Column{{Name: "Name", Type: "string", Format: "name"}, {Name: "Data", Type: "integer"}}
	for _, sep := range []struct{ name, sep string }{
		{"back to back", ""},
		{"newline", "\n"},
		{"CRLF and spaces", "\r\n  "},
	} {
		t.Run(sep.name, func(t *testing.T) {
			c := NewClient(nil, configMaps, Scope{Shape: Shape{Table: true}})
			s := newTestStream(strings.Join(events, sep.sep)+sep.sep, c)
			defer s.Close()
			evs, err := readAll(t, s)
			if err != io.EOF {
				t.Errorf("Next after the last event = %v, want io.EOF itself", err)
			}
			var gots []got
			for _, ev := range evs {
				if ev.Err != nil {
					t.Errorf("%s event with Err %v", ev.Type, ev.Err)
				}
				gots = append(gots, describeEvent(t, ev))
			}
			if !reflect.DeepEqual(gots, want) {
				t.Errorf("events:\n%s\nwant\n%s", fmtEvents(gots), fmtEvents(want))
			}
			if cols := c.Columns(); !reflect.DeepEqual(cols, wantCols) {
				t.Errorf("Columns() = %+v, want the first Table event's %+v", cols, wantCols)
			}
		})
	}
}

func fmtEvents(gs []got) string {
	var sb strings.Builder
	for _, g := range gs {
		sb.WriteString("  " + g.typ.String() + " rv=" + g.rv)
		if g.initialEventsEnd {
			sb.WriteString(" initial-events-end")
		}
		if g.obj != nil {
			sb.WriteString(" " + strings.Join([]string{g.obj.apiVersion, g.obj.kind, g.obj.namespace, g.obj.name, g.obj.uid, g.obj.rv, g.obj.cells}, " "))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestStreamPrunes: watched objects are pruned like listed ones.
func TestStreamPrunes(t *testing.T) {
	const ev = `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"1","managedFields":[{}],
		"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}","keep":"me"}}}}`
	s := newTestStream(ev, NewClient(nil, configMaps, Scope{Shape: Shape{Prune: object.Prune{ManagedFields: true, LastApplied: true}}}))
	defer s.Close()
	e, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"1","annotations":{"keep":"me"}}}`
	if got := strings.Join(strings.Fields(string(e.Object.JSON())), ""); got != want {
		t.Errorf("JSON() = %s, want %s", got, want)
	}
}

// TestStreamErrors: ERROR events carry the server's Status as an
// *apierrors.StatusError; anything the stream cannot read is an error from
// Next, never io.EOF and never a panic.
func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantEv  func(error) bool // an ERROR event whose Err satisfies this
		wantErr bool             // Next fails (with something other than io.EOF)
		wantEOF bool
	}{
		{name: "410 Expired", body: evExpired, wantEv: apierrors.IsResourceExpired},
		{name: "410 Gone", body: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Gone","code":410}}`, wantEv: apierrors.IsGone},
		{name: "500", body: `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"etcd is down","reason":"InternalError","code":500}}`, wantEv: apierrors.IsInternalError},
		{name: "ERROR without a Status", body: `{"type":"ERROR","object":{"kind":"ConfigMap"}}`, wantEv: func(err error) bool {
			var se *apierrors.StatusError
			return err != nil && !errors.As(err, &se)
		}},
		{name: "ERROR with a non-object", body: `{"type":"ERROR","object":"boom"}`, wantEv: func(err error) bool { return err != nil }},
		{name: "unknown type", body: `{"type":"SYNC","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}`, wantErr: true},
		{name: "lower-case type", body: `{"type":"added","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}`, wantErr: true},
		{name: "no type", body: `{"object":{"kind":"ConfigMap","metadata":{"name":"a"}}}`, wantErr: true},
		{name: "empty object", body: `{}`, wantErr: true},
		{name: "ADDED without object", body: `{"type":"ADDED"}`, wantErr: true},
		{name: "ADDED with a string", body: `{"type":"ADDED","object":"a"}`, wantErr: true},
		{name: "ADDED with null", body: `{"type":"ADDED","object":null}`, wantErr: true},
		{name: "ADDED Table without rows", body: `{"type":"ADDED","object":{"kind":"Table","rows":[]}}`, wantErr: true},
		{name: "ADDED Table with bad columns", body: `{"type":"ADDED","object":{"kind":"Table","columnDefinitions":"x","rows":[{"object":{}}]}}`, wantErr: true},
		{name: "frame is a number", body: `42`, wantErr: true},
		{name: "garbage", body: `garbage`, wantErr: true},
		{name: "HTML", body: `<html>`, wantErr: true},
		{name: "truncated", body: `{"type":"ADDED","object":{"metadata":`, wantErr: true},
		{name: "empty body", body: ``, wantEOF: true},
		{name: "only whitespace", body: "\n \r\n", wantEOF: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStream(tt.body, NewClient(nil, configMaps, Scope{}))
			defer s.Close()
			var (
				ev  watch.WatchEvent[*object.Object]
				err error
			)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Next panicked: %v", r)
					}
				}()
				ev, err = s.Next()
			}()
			switch {
			case tt.wantEv != nil:
				if err != nil || ev.Type != watch.WatchError || !tt.wantEv(ev.Err) || ev.Object != nil {
					t.Errorf("Next = %s event, Err %#v, object %v, error %v; want an ERROR event", ev.Type, ev.Err, ev.Object, err)
				}
			case tt.wantEOF:
				if err != io.EOF {
					t.Errorf("Next = %s, %v; want io.EOF", ev.Type, err)
				}
			case tt.wantErr:
				if err == nil || errors.Is(err, io.EOF) {
					t.Errorf("Next = %s event, %v; want an error other than io.EOF", ev.Type, err)
				} else if !strings.Contains(err.Error(), "configmaps") {
					t.Errorf("error %q does not name the resource", err)
				}
			}
		})
	}
}

// TestStreamExpiredStatus: the 410 comes through with the server's words.
func TestStreamExpiredStatus(t *testing.T) {
	s := newTestStream(evExpired, NewClient(nil, configMaps, Scope{}))
	defer s.Close()
	ev, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	var se *apierrors.StatusError
	if !errors.As(ev.Err, &se) {
		t.Fatalf("Err = %#v, want an *apierrors.StatusError", ev.Err)
	}
	if se.ErrStatus.Code != 410 || se.ErrStatus.Message != "too old resource version: 5 (10)" {
		t.Errorf("status = %+v", se.ErrStatus)
	}
}

// TestStreamDoesNotAliasFrame: an event stays the same after the stream
// has read the next one into its reused buffers.
func TestStreamDoesNotAliasFrame(t *testing.T) {
	// Each pair has a second event at least as long as the first, so that
	// it overwrites all of the first's bytes in a shared buffer.
	tests := []struct{ name, first, second string }{
		{"object", evAdded, strings.Replace(evModified, `"v2"`, `"v2 and then some"`, 1)},
		{"object after a shorter one", evDeletedNoKind, evModified},
		{"Table row", evTableAdded, strings.Replace(evTableAdded, `"c",1`, `"zzzzzz",9999`, 1)},
		{"bookmark", evBookmarkInitEnd, strings.Replace(evBookmarkInitEnd, `"21"`, `"99999999"`, 2)},
		{"Table bookmark", evTableBookmarkEnd, strings.Replace(evTableBookmarkEnd, `"23"`, `"99999999"`, 2)},
		{"error", evExpired, strings.Replace(evExpired, "too old", "much, much too old", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStream(tt.first+"\n"+tt.second, NewClient(nil, configMaps, Scope{Shape: Shape{Table: true}}))
			defer s.Close()
			first, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			before := eventSnapshot(first)
			if _, err := s.Next(); err != nil {
				t.Fatal(err)
			}
			if after := eventSnapshot(first); after != before {
				t.Errorf("the first event changed when the second was read:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func eventSnapshot(ev watch.WatchEvent[*object.Object]) string {
	s := ev.Type.String() + " rv=" + ev.ResourceVersion
	if ev.Object != nil {
		s += snapshot(watch.Page[*object.Object]{Items: []*object.Object{ev.Object}}, nil)
	}
	if ev.Err != nil {
		s += " err=" + ev.Err.Error()
	}
	return s
}

// TestStreamClose closes the body.
func TestStreamClose(t *testing.T) {
	body := &closeRecorder{Reader: strings.NewReader(evAdded)}
	c := NewClient(nil, configMaps, Scope{})
	s := newStream(body, c, c.ep.Load())
	s.Close()
	if !body.closed {
		t.Error("Close did not close the body")
	}
}

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }
