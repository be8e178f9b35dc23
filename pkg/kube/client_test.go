package kube

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// fakeAPI is an API server that answers every request with one status and
// body, and records what it was asked.
type fakeAPI struct {
	status int
	body   string

	mu       sync.Mutex
	requests []*http.Request
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(r.Context()))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	io.WriteString(w, f.body)
}

// last is the one request the server had.
func (f *fakeAPI) last(t *testing.T) *http.Request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) != 1 {
		t.Fatalf("the server had %d requests, want 1", len(f.requests))
	}
	return f.requests[0]
}

// serve starts api and returns a REST client for it.
func serve(t *testing.T, api *fakeAPI) rest.Interface {
	t.Helper()
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	rc, err := NewRESTClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

const emptyConfigMapList = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`

// TestListRequest: List asks for the resource's path, with the scope's and
// the page's parameters and nothing else.
func TestListRequest(t *testing.T) {
	tests := []struct {
		name       string
		resource   Resource
		scope      Scope
		opts       watch.ListRequest
		wantPath   string
		wantQuery  url.Values
		wantTable  bool
		serverBody string
	}{{
		name: "namespaced core resource in a namespace", resource: configMaps, scope: Scope{Namespace: "ns1"},
		wantPath: "/api/v1/namespaces/ns1/configmaps", wantQuery: url.Values{},
	}, {
		name: "namespaced core resource in all namespaces", resource: configMaps,
		wantPath: "/api/v1/configmaps", wantQuery: url.Values{},
	}, {
		name: "cluster-scoped resource ignores the namespace", resource: namespaces, scope: Scope{Namespace: "ns1"},
		wantPath: "/api/v1/namespaces", wantQuery: url.Values{},
	}, {
		name: "grouped resource in a namespace", resource: deployments, scope: Scope{Namespace: "ns1"},
		wantPath: "/apis/apps/v1/namespaces/ns1/deployments", wantQuery: url.Values{},
		serverBody: `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"1"},"items":[]}`,
	}, {
		name: "grouped resource in all namespaces", resource: widgets,
		wantPath: "/apis/example.com/v1/widgets", wantQuery: url.Values{},
		serverBody: `{"kind":"WidgetList","apiVersion":"example.com/v1","metadata":{"resourceVersion":"1"},"items":[]}`,
	}, {
		name: "selectors", resource: configMaps, scope: Scope{Namespace: "ns1", LabelSelector: "app=web,tier!=db", FieldSelector: "metadata.name=a"},
		wantPath:  "/api/v1/namespaces/ns1/configmaps",
		wantQuery: url.Values{"labelSelector": {"app=web,tier!=db"}, "fieldSelector": {"metadata.name=a"}},
	}, {
		name: "first page", resource: configMaps, opts: watch.ListRequest{Limit: 500},
		wantPath: "/api/v1/configmaps", wantQuery: url.Values{"limit": {"500"}},
	}, {
		name: "next page", resource: configMaps, opts: watch.ListRequest{Limit: 500, Continue: "tok/en=="},
		wantPath: "/api/v1/configmaps", wantQuery: url.Values{"limit": {"500"}, "continue": {"tok/en=="}},
	}, {
		name: "at a resourceVersion", resource: configMaps, opts: watch.ListRequest{ResourceVersion: "10"},
		wantPath: "/api/v1/configmaps", wantQuery: url.Values{"resourceVersion": {"10"}},
	}, {
		name: "everything", resource: deployments,
		scope:     Scope{Namespace: "ns1", LabelSelector: "app", FieldSelector: "status.phase!=x", Shape: Shape{Table: true}},
		opts:      watch.ListRequest{Limit: 2, Continue: "c", ResourceVersion: "0"},
		wantPath:  "/apis/apps/v1/namespaces/ns1/deployments",
		wantQuery: url.Values{"labelSelector": {"app"}, "fieldSelector": {"status.phase!=x"}, "limit": {"2"}, "continue": {"c"}, "resourceVersion": {"0"}, "includeObject": {"Object"}},
		wantTable: true,
	}, {
		name: "Table", resource: configMaps, scope: Scope{Shape: Shape{Table: true}},
		wantPath: "/api/v1/configmaps", wantQuery: url.Values{"includeObject": {"Object"}}, wantTable: true,
	}, {
		name: "Table of metadata", resource: configMaps, scope: Scope{Shape: Shape{Table: true, MetadataOnly: true}},
		wantPath: "/api/v1/configmaps", wantQuery: url.Values{"includeObject": {"Metadata"}}, wantTable: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.serverBody
			if body == "" {
				body = emptyConfigMapList
			}
			api := &fakeAPI{status: http.StatusOK, body: body}
			c := NewClient(serve(t, api), tt.resource, tt.scope)
			if _, err := c.List(t.Context(), tt.opts); err != nil {
				t.Fatalf("List: %v", err)
			}
			r := api.last(t)
			checkRequest(t, r, tt.wantPath, tt.wantQuery, tt.wantTable)
		})
	}
}

func checkRequest(t *testing.T, r *http.Request, wantPath string, wantQuery url.Values, wantTable bool) {
	t.Helper()
	if r.Method != http.MethodGet {
		t.Errorf("method = %s, want GET", r.Method)
	}
	if r.URL.Path != wantPath {
		t.Errorf("path = %s, want %s", r.URL.Path, wantPath)
	}
	if q := r.URL.Query(); !reflect.DeepEqual(q, wantQuery) {
		t.Errorf("query = %v, want %v", q, wantQuery)
	}
	accept := r.Header.Get("Accept")
	if wantTable {
		if accept != "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" {
			t.Errorf("Accept = %q, want a Table with JSON as the fallback", accept)
		}
	} else if accept != "application/json" {
		t.Errorf("Accept = %q, want application/json", accept)
	}
}

// TestWatchRequest: Watch asks for a watch of the resource's path with the
// scope's and the watch's parameters.
func TestWatchRequest(t *testing.T) {
	tests := []struct {
		name      string
		resource  Resource
		scope     Scope
		opts      watch.WatchRequest
		wantPath  string
		wantQuery url.Values
		wantTable bool
	}{{
		name: "bare", resource: configMaps, scope: Scope{Namespace: "ns1"},
		wantPath: "/api/v1/namespaces/ns1/configmaps", wantQuery: url.Values{"watch": {"1"}},
	}, {
		name: "from a resourceVersion with bookmarks and a timeout", resource: deployments,
		opts:      watch.WatchRequest{ResourceVersion: "10", TimeoutSeconds: 317, AllowWatchBookmarks: true},
		wantPath:  "/apis/apps/v1/deployments",
		wantQuery: url.Values{"watch": {"1"}, "resourceVersion": {"10"}, "timeoutSeconds": {"317"}, "allowWatchBookmarks": {"true"}},
	}, {
		name: "streaming list", resource: configMaps, scope: Scope{Namespace: "ns1"},
		opts:     watch.WatchRequest{SendInitialEvents: true, AllowWatchBookmarks: true, TimeoutSeconds: 60},
		wantPath: "/api/v1/namespaces/ns1/configmaps",
		wantQuery: url.Values{"watch": {"1"}, "sendInitialEvents": {"true"}, "resourceVersionMatch": {"NotOlderThan"},
			"allowWatchBookmarks": {"true"}, "timeoutSeconds": {"60"}},
	}, {
		name: "cluster-scoped with selectors as a Table", resource: namespaces,
		scope:     Scope{Namespace: "ignored", LabelSelector: "env=prod", FieldSelector: "metadata.name!=kube-system", Shape: Shape{Table: true}},
		opts:      watch.WatchRequest{ResourceVersion: "5"},
		wantPath:  "/api/v1/namespaces",
		wantQuery: url.Values{"watch": {"1"}, "resourceVersion": {"5"}, "labelSelector": {"env=prod"}, "fieldSelector": {"metadata.name!=kube-system"}, "includeObject": {"Object"}},
		wantTable: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{status: http.StatusOK}
			c := NewClient(serve(t, api), tt.resource, tt.scope)
			s, err := c.Watch(t.Context(), tt.opts)
			if err != nil {
				t.Fatalf("Watch: %v", err)
			}
			defer s.Close()
			if _, err := s.Next(); err != io.EOF {
				t.Errorf("Next on an empty watch = %v, want io.EOF", err)
			}
			checkRequest(t, api.last(t), tt.wantPath, tt.wantQuery, tt.wantTable)
		})
	}
}

// configMapListItems are the objects of configMapList.
var configMapListItems = []item{
	{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "10"},
	{apiVersion: "v1", kind: "ConfigMap"},
	{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "c", uid: "uc", rv: "12"},
	{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "d", uid: "ud", rv: "13"},
}

// TestListDecodes: List returns the server's objects with their kind, and
// learns the columns from a Table.
func TestListDecodes(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		scope     Scope
		wantItems []item
		wantRV    string
		wantCont  string
		wantCols  []object.Column
	}{{
		name: "plain", body: configMapList,
		wantItems: configMapListItems,
		wantRV:    "100", wantCont: "tok-1",
	}, {
		name: "Table", body: configMapTable, scope: Scope{Shape: Shape{Table: true}},
		wantItems: []item{
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "150", cells: `["a",1,"5m"]`},
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "b", uid: "ub", rv: "160", cells: `["b",0,"1h"]`},
		},
		wantRV: "200", wantCont: "tok-2", wantCols: configMapColumns,
	}, {
		name: "plain JSON from a server that cannot make a Table", body: configMapList, scope: Scope{Shape: Shape{Table: true}},
		wantItems: configMapListItems,
		wantRV:    "100", wantCont: "tok-1",
	}, {
		name: "names kept", body: configMapList, scope: Scope{Names: []string{"d", "a", "nope"}},
		wantItems: []item{configMapListItems[0], configMapListItems[3]},
		wantRV:    "100", wantCont: "tok-1",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(serve(t, &fakeAPI{status: http.StatusOK, body: tt.body}), configMaps, tt.scope)
			if cols := c.Columns(); cols != nil {
				t.Errorf("Columns() before any answer = %+v, want nil", cols)
			}
			page, err := c.List(t.Context(), watch.ListRequest{})
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if got := describeAll(t, page.Items); !reflect.DeepEqual(got, tt.wantItems) {
				t.Errorf("items =\n%+v\nwant\n%+v", got, tt.wantItems)
			}
			if page.ResourceVersion != tt.wantRV || page.Continue != tt.wantCont {
				t.Errorf("resourceVersion, continue = %q, %q; want %q, %q", page.ResourceVersion, page.Continue, tt.wantRV, tt.wantCont)
			}
			if cols := c.Columns(); !reflect.DeepEqual(cols, tt.wantCols) {
				t.Errorf("Columns() = %+v, want %+v", cols, tt.wantCols)
			}
		})
	}
}

// TestWatchDecodes: Watch streams the server's events, with the columns of
// a Table watch.
func TestWatchDecodes(t *testing.T) {
	body := strings.Join([]string{evTableAdded, evTableModified, evTableBookmarkEnd, evExpired}, "\n")
	c := NewClient(serve(t, &fakeAPI{status: http.StatusOK, body: body}), configMaps, Scope{Shape: Shape{Table: true}})
	s, err := c.Watch(t.Context(), watch.WatchRequest{SendInitialEvents: true, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer s.Close()
	var evs []got
	var last watch.WatchEvent[*object.Object]
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		last = ev
		evs = append(evs, describeEvent(t, ev))
	}
	want := []got{
		{typ: watch.WatchAdded, rv: "14", obj: &item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "c", uid: "uc", rv: "14", cells: `["c",1]`}},
		{typ: watch.WatchModified, rv: "15", obj: &item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "c", uid: "uc", rv: "15", cells: `["c",2]`}},
		{typ: watch.WatchBookmark, rv: "23", initialEventsEnd: true},
		{typ: watch.WatchError},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("events:\n%s\nwant\n%s", fmtEvents(evs), fmtEvents(want))
	}
	if !apierrors.IsResourceExpired(last.Err) {
		t.Errorf("last event's Err = %v, want 410 Expired", last.Err)
	}
	wantCols := []object.Column{{Name: "Name", Type: "string", Format: "name"}, {Name: "Data", Type: "integer"}}
	if cols := c.Columns(); !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("Columns() = %+v, want %+v", cols, wantCols)
	}
}

// TestWatchKeepsNames: with Scope.Names, the events of other objects are
// skipped; bookmarks and errors still come.
func TestWatchKeepsNames(t *testing.T) {
	body := strings.Join([]string{evTableAdded, evTableModified, evTableBookmarkEnd, evExpired}, "\n")
	c := NewClient(serve(t, &fakeAPI{status: http.StatusOK, body: body}), configMaps, Scope{Names: []string{"a", "b"}, Shape: Shape{Table: true}})
	s, err := c.Watch(t.Context(), watch.WatchRequest{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer s.Close()
	var types []watch.WatchEventType
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		types = append(types, ev.Type)
	}
	if want := []watch.WatchEventType{watch.WatchBookmark, watch.WatchError}; !reflect.DeepEqual(types, want) {
		t.Errorf("event types = %v, want %v (the events of c skipped)", types, want)
	}
}

const (
	forbiddenStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"configmaps is forbidden: User \"jane\" cannot list resource \"configmaps\" in API group \"\" at the cluster scope",` +
		`"reason":"Forbidden","details":{"kind":"configmaps"},"code":403}`
	badRequestStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"unable to parse requirement: found '!', expected: identifier","reason":"BadRequest","code":400}`
	expiredStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410}`
	notFoundStatus = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`
)

// TestServerErrors: the server's Status comes back as an error that
// apierrors classifies, with the server's message, from List and Watch.
func TestServerErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		body        string
		is          func(error) bool
		wantMessage string
	}{
		{"403", http.StatusForbidden, forbiddenStatus, apierrors.IsForbidden, `User "jane" cannot list resource "configmaps"`},
		{"400", http.StatusBadRequest, badRequestStatus, apierrors.IsBadRequest, "unable to parse requirement: found '!', expected: identifier"},
		{"410", http.StatusGone, expiredStatus, apierrors.IsResourceExpired, "too old to display a consistent list result"},
		{"404", http.StatusNotFound, notFoundStatus, apierrors.IsNotFound, "the server could not find the requested resource"},
	}
	calls := []struct {
		name string
		call func(*testing.T, *Client) error
	}{
		{"List", func(t *testing.T, c *Client) error {
			_, err := c.List(t.Context(), watch.ListRequest{})
			return err
		}},
		{"Get", func(t *testing.T, c *Client) error {
			_, err := c.Get(t.Context(), "a", "")
			return err
		}},
		{"Watch", func(t *testing.T, c *Client) error {
			s, err := c.Watch(t.Context(), watch.WatchRequest{})
			if err == nil {
				s.Close()
			}
			return err
		}},
	}
	for _, tt := range tests {
		for _, call := range calls {
			for _, table := range []bool{false, true} {
				name := tt.name + "/" + call.name
				if table {
					name += "/Table"
				}
				t.Run(name, func(t *testing.T) {
					c := NewClient(serve(t, &fakeAPI{status: tt.status, body: tt.body}), configMaps, Scope{Shape: Shape{Table: table}})
					err := call.call(t, c)
					if err == nil {
						t.Fatal("no error")
					}
					if !tt.is(err) {
						t.Errorf("error %q (%T) not classified", err, errors.Unwrap(err))
					}
					var se *apierrors.StatusError
					if !errors.As(err, &se) {
						t.Errorf("error %q does not wrap an *apierrors.StatusError", err)
					}
					if !strings.Contains(err.Error(), tt.wantMessage) || strings.Contains(err.Error(), "unknown") {
						t.Errorf("error = %q, want the server's message %q", err, tt.wantMessage)
					}
					if !strings.Contains(err.Error(), "configmaps") {
						t.Errorf("error = %q does not name the resource", err)
					}
				})
			}
		}
	}
}

// TestListNotJSON: a 200 whose body is not a list (a proxy's page, a cut
// connection) fails the List instead of reading as an empty list.
func TestListNotJSON(t *testing.T) {
	c := NewClient(serve(t, &fakeAPI{status: http.StatusOK, body: "<html><body>upstream connect error</body></html>"}), configMaps, Scope{})
	if page, err := c.List(t.Context(), watch.ListRequest{}); err == nil {
		t.Errorf("List = %d items, rv %q; want an error", len(page.Items), page.ResourceVersion)
	}
}

// TestRequestsJSONOnly: the client decodes JSON only, so it must not offer
// CBOR even where client-go's ClientsAllowCBOR gate is on.
func TestRequestsJSONOnly(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.ClientsAllowCBOR, true)
	for _, table := range []bool{false, true} {
		api := &fakeAPI{status: http.StatusOK, body: emptyConfigMapList}
		c := NewClient(serve(t, api), configMaps, Scope{Shape: Shape{Table: table}})
		if _, err := c.List(t.Context(), watch.ListRequest{}); err != nil {
			t.Fatal(err)
		}
		if accept := api.last(t).Header.Get("Accept"); strings.Contains(accept, "cbor") {
			t.Errorf("Table %v: Accept = %q offers CBOR", table, accept)
		}
	}
}

// TestMetadataOnlyAccept: a scope of metadata without a Table asks for a
// PartialObjectMetadataList to list and PartialObjectMetadata to watch
// (JSON as the fallback), and decodes their objects.
func TestMetadataOnlyAccept(t *testing.T) {
	body := `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},"items":[` +
		`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"ns1","uid":"u1","resourceVersion":"5"}}]}`
	api := &fakeAPI{status: http.StatusOK, body: body}
	c := NewClient(serve(t, api), configMaps, Scope{Shape: Shape{MetadataOnly: true}})
	page, err := c.List(t.Context(), watch.ListRequest{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if got, want := api.last(t).Header.Get("Accept"), "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"; got != want {
		t.Errorf("LIST Accept = %q, want %q", got, want)
	}
	if len(page.Items) != 1 || page.Items[0].Name != "a" || page.Items[0].ResourceVersion != "5" || page.ResourceVersion != "7" {
		t.Errorf("page: %d items, resourceVersion %q", len(page.Items), page.ResourceVersion)
	}
	watchAPI := &fakeAPI{status: http.StatusOK}
	s, err := NewClient(serve(t, watchAPI), configMaps, Scope{Shape: Shape{MetadataOnly: true}}).Watch(t.Context(), watch.WatchRequest{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	s.Close()
	if got, want := watchAPI.last(t).Header.Get("Accept"), "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json"; got != want {
		t.Errorf("WATCH Accept = %q, want %q", got, want)
	}
}

func TestNameFieldSelector(t *testing.T) {
	for _, tc := range []struct{ name, sel, want string }{
		{"web", "", "metadata.name=web"},
		{"web", "status.phase=Running", "metadata.name=web,status.phase=Running"},
		{"a,b", "", `metadata.name=a\,b`},
		{`a=b\c`, "", `metadata.name=a\=b\\c`},
	} {
		got := NameFieldSelector(tc.name, tc.sel)
		if got != tc.want {
			t.Errorf("NameFieldSelector(%q, %q) = %q, want %q", tc.name, tc.sel, got, tc.want)
		}
		if _, err := fields.ParseSelector(got); err != nil {
			t.Errorf("NameFieldSelector(%q, %q) = %q: %v", tc.name, tc.sel, got, err)
		}
	}
}
