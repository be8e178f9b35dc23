package kube

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// decodingOf is how a Client of r with scope s decodes.
func decodingOf(r Resource, s Scope) decoding { return NewClient(nil, r, s).ep.Load().decoding }

// item is what a test expects of one decoded object.
type item struct {
	apiVersion, kind, namespace, name, uid, rv string
	cells                                      string // the JSON array, or "" for none
}

// describe renders an object as an item, checking on the way that its JSON
// is valid.
func describe(t *testing.T, o *object.Object) item {
	t.Helper()
	if o == nil {
		t.Fatal("nil object")
	}
	if !json.Valid(o.JSON()) {
		t.Errorf("object %s/%s: JSON is not valid: %s", o.Namespace, o.Name, o.JSON())
	}
	it := item{
		apiVersion: gjson.GetBytes(o.JSON(), "apiVersion").Str, kind: gjson.GetBytes(o.JSON(), "kind").Str,
		namespace: o.Namespace, name: o.Name, uid: o.UID, rv: o.ResourceVersion,
	}
	if o.Cells != nil {
		if !json.Valid(o.Cells) || !gjson.ParseBytes(o.Cells).IsArray() {
			t.Errorf("object %s/%s: Cells is not a JSON array: %s", o.Namespace, o.Name, o.Cells)
		}
		it.cells = string(o.Cells)
	}
	return it
}

// wantPage is what a test expects of a decoded list.
type wantPage struct {
	items    []item
	rv, cont string
	cols     []object.Column
}

func checkPage(t *testing.T, page watch.Page[*object.Object], cols []object.Column, want wantPage) {
	t.Helper()
	if got := describeAll(t, page.Items); !reflect.DeepEqual(got, want.items) {
		t.Errorf("items =\n%+v\nwant\n%+v", got, want.items)
	}
	if page.ResourceVersion != want.rv || page.Continue != want.cont {
		t.Errorf("resourceVersion, continue = %q, %q; want %q, %q", page.ResourceVersion, page.Continue, want.rv, want.cont)
	}
	if !reflect.DeepEqual(cols, want.cols) {
		t.Errorf("columns = %+v, want %+v", cols, want.cols)
	}
}

func describeAll(t *testing.T, objs []*object.Object) []item {
	t.Helper()
	out := []item{}
	for _, o := range objs {
		out = append(out, describe(t, o))
	}
	return out
}

const (
	configMapList = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100","continue":"tok-1"},"items":[
		{"metadata":{"name":"a","namespace":"ns1","uid":"ua","resourceVersion":"10","managedFields":[{"manager":"m"}]},"data":{"k":"v"}},
		{},
		{ "metadata":{"name":"c","namespace":"ns2","uid":"uc","resourceVersion":"12"}},
		{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"d","namespace":"ns2","uid":"ud","resourceVersion":"13"}}
	]}`
	configMapTable = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"200","continue":"tok-2"},
		"columnDefinitions":[
			{"name":"Name","type":"string","format":"name","description":"Name must be unique","priority":0},
			{"name":"Data","type":"integer","format":"","description":"","priority":0},
			{"name":"Age","type":"string","format":"","description":"","priority":1}
		],
		"rows":[
			{"cells":["a",1,"5m"],"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns1","uid":"ua","resourceVersion":"150","managedFields":[{}]}}},
			{"cells":["b",0,"1h"],"object":{"metadata":{"name":"b","namespace":"ns1","uid":"ub","resourceVersion":"160"}}}
		]}`
)

var configMapColumns = []object.Column{
	{Name: "Name", Type: "string", Format: "name"},
	{Name: "Data", Type: "integer"},
	{Name: "Age", Type: "string", Priority: 1},
}

// TestDecodePage: list pages, plain or as a Table, become objects with
// their kind, printer cells and the page's resourceVersion and continue
// token.
func TestDecodePage(t *testing.T) {
	tests := []struct {
		name        string
		resource    Resource
		prune       object.Prune
		body        string
		wantItems   []item
		wantRV      string
		wantCont    string
		wantCols    []object.Column
		wantManaged []bool // metadata.managedFields kept, per item; nil: not checked
		bug         string // non-empty: the fixed bug this case keeps fixed
	}{{
		name: "v1 List of a core resource", resource: configMaps, body: configMapList,
		wantItems: []item{
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "10"},
			{apiVersion: "v1", kind: "ConfigMap"},
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "c", uid: "uc", rv: "12"},
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "d", uid: "ud", rv: "13"},
		},
		wantRV: "100", wantCont: "tok-1", wantManaged: []bool{true, false, false, false},
	}, {
		name: "v1 List pruned", resource: configMaps, prune: object.Prune{ManagedFields: true}, body: configMapList,
		wantItems: []item{
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "10"},
			{apiVersion: "v1", kind: "ConfigMap"},
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "c", uid: "uc", rv: "12"},
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns2", name: "d", uid: "ud", rv: "13"},
		},
		wantRV: "100", wantCont: "tok-1", wantManaged: []bool{false, false, false, false},
	}, {
		name:     "v1 List of a grouped resource",
		resource: deployments,
		body:     `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"web","namespace":"ns1","uid":"uw","resourceVersion":"6"}},{ }]}`,
		wantItems: []item{
			{apiVersion: "apps/v1", kind: "Deployment", namespace: "ns1", name: "web", uid: "uw", rv: "6"},
			{apiVersion: "apps/v1", kind: "Deployment"},
		},
		wantRV: "7",
	}, {
		name: "empty List", resource: configMaps,
		body:      `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"8"},"items":[]}`,
		wantItems: []item{}, wantRV: "8",
	}, {
		name: "List with null items", resource: configMaps,
		body:      `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":null}`,
		wantItems: []item{}, wantRV: "9",
		bug: `"items":null (what Go encodes for a list with nil Items) is an error "object is not a JSON object: \"null\"": ` +
			`gjson's ForEach calls its iterator once with a null value (pkg/kube/decode.go decodePage)`,
	}, {
		name: "Table with objects", resource: configMaps, body: configMapTable,
		wantItems: []item{
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "150", cells: `["a",1,"5m"]`},
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "b", uid: "ub", rv: "160", cells: `["b",0,"1h"]`},
		},
		wantRV: "200", wantCont: "tok-2", wantCols: configMapColumns, wantManaged: []bool{true, false},
	}, {
		name: "Table pruned", resource: configMaps, prune: object.Prune{ManagedFields: true}, body: configMapTable,
		wantItems: []item{
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "150", cells: `["a",1,"5m"]`},
			{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "b", uid: "ub", rv: "160", cells: `["b",0,"1h"]`},
		},
		wantRV: "200", wantCont: "tok-2", wantCols: configMapColumns, wantManaged: []bool{false, false},
	}, {
		name: "Table without rows", resource: configMaps,
		body:      `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"300"},"columnDefinitions":[{"name":"Name","type":"string","format":"name"}],"rows":[]}`,
		wantItems: []item{}, wantRV: "300", wantCols: []object.Column{{Name: "Name", Type: "string", Format: "name"}},
	}, {
		// What the apiserver's default table convertor (roles, clusterroles,
		// limitranges, apiservices, ...) sends for an empty list.
		name: "Table with null rows", resource: configMaps,
		body:      `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"301"},"columnDefinitions":[{"name":"Name","type":"string","format":"name"}],"rows":null}`,
		wantItems: []item{}, wantRV: "301", wantCols: []object.Column{{Name: "Name", Type: "string", Format: "name"}},
		bug: `"rows":null (the default table convertor's empty Table) is an error "object is not a JSON object": ` +
			`gjson's ForEach calls its iterator once with a null value (pkg/kube/decode.go decodePage)`,
	}, {
		name: "Table without column definitions", resource: configMaps,
		body:      `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"302"},"columnDefinitions":null,"rows":[{"cells":["a"],"object":{"metadata":{"name":"a","resourceVersion":"1"}}}]}`,
		wantItems: []item{{apiVersion: "v1", kind: "ConfigMap", name: "a", rv: "1", cells: `["a"]`}}, wantRV: "302",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, cols, err := decodePage([]byte(tt.body), decodingOf(tt.resource, Scope{Shape: Shape{Prune: tt.prune}}))
			if err != nil {
				t.Fatalf("decodePage: %v", err)
			}
			checkPage(t, page, cols, wantPage{tt.wantItems, tt.wantRV, tt.wantCont, tt.wantCols})
			for i, want := range tt.wantManaged {
				if got := gjson.GetBytes(page.Items[i].JSON(), "metadata.managedFields").Exists(); got != want {
					t.Errorf("item %d: managedFields kept = %v, want %v", i, got, want)
				}
			}
		})
	}
}

// TestDecodePageMalformed: a page that is not a List or Table of objects is
// an error, never a panic, and never a silently empty page (which the
// watcher would take for "every object is gone").
func TestDecodePageMalformed(t *testing.T) {
	tests := []struct {
		name string
		body string
		bug  string // non-empty: the fixed bug this case keeps fixed (it once decoded without an error)
	}{
		{name: "item is a number", body: `{"kind":"List","items":[1]}`},
		{name: "item is a string", body: `{"kind":"List","items":["x"]}`},
		{name: "item is null", body: `{"kind":"List","items":[null]}`},
		{name: "item is an array", body: `{"kind":"List","items":[[]]}`},
		{name: "items is a string", body: `{"kind":"List","items":"x"}`},
		{name: "bad item after good ones", body: `{"kind":"List","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}},7]}`},
		{name: "columnDefinitions is a string", body: `{"kind":"Table","columnDefinitions":"x","rows":[]}`},
		{name: "column name is a number", body: `{"kind":"Table","columnDefinitions":[{"name":1}],"rows":[]}`},
		{name: "row without object", body: `{"kind":"Table","columnDefinitions":[],"rows":[{"cells":["a"]}]}`},
		{name: "row object is a string", body: `{"kind":"Table","rows":[{"cells":["a"],"object":"a"}]}`},
		{name: "row object is null", body: `{"kind":"Table","rows":[{"cells":["a"],"object":null}]}`},
		{name: "not JSON", body: `garbage`, bug: "not-JSON bodies decode as an empty page"},
		{name: "HTML", body: `<html><body>502 Bad Gateway</body></html>`, bug: "not-JSON bodies decode as an empty page"},
		{name: "empty body", body: ``, bug: "an empty body decodes as an empty page"},
		{name: "JSON array", body: `[]`, bug: "a top-level array decodes as an empty page"},
		{name: "JSON string", body: `"x"`, bug: "a top-level string decodes as an empty page"},
		{name: "truncated List", body: `{"kind":"List","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"metadata":`, bug: "a truncated List decodes, with a truncated object as its last item"},
		{name: "truncated Table", body: `{"kind":"Table","metadata":{"resourceVersion":"5"},"rows":[{"cells":["a"],"object":{"metadata":{"name":"a"}}}`, bug: "a truncated Table decodes"},
		{name: "items is an object", body: `{"kind":"List","items":{"a":{"metadata":{"name":"a"}}}}`, bug: "an object as items is iterated like an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				page watch.Page[*object.Object]
				err  error
			)
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("decodePage panicked: %v", r)
					}
				}()
				page, _, err = decodePage([]byte(tt.body), decodingOf(configMaps, Scope{}))
			}()
			if err == nil {
				t.Errorf("decodePage = %d items, rv %q, want an error", len(page.Items), page.ResourceVersion)
			}
		})
	}
}

// TestDecodePageDoesNotAliasBody: nothing decodePage returns points into
// the body, which the caller may reuse.
func TestDecodePageDoesNotAliasBody(t *testing.T) {
	for _, body := range []string{configMapList, configMapTable} {
		kind := gjson.Get(body, "kind").Str
		t.Run(kind, func(t *testing.T) {
			b := []byte(body)
			page, cols, err := decodePage(b, decodingOf(configMaps, Scope{}))
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(page, cols)
			for i := range b {
				b[i] = 'X'
			}
			if after := snapshot(page, cols); after != before {
				t.Errorf("the page changed with the body:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// snapshot renders everything a page holds into a fresh string.
func snapshot(page watch.Page[*object.Object], cols []object.Column) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "rv=%q continue=%q cols=%+v", page.ResourceVersion, page.Continue, cols)
	for _, o := range page.Items {
		fmt.Fprintf(&sb, " {%q %q %q %q raw=%q cells=%q}", o.Namespace, o.Name, o.UID, o.ResourceVersion, o.JSON(), o.Cells)
	}
	return sb.String()
}

// TestPackLists: with Scope.PackLists the objects of a LIST are packed
// (once the decoder has learnt its codec from the first ones) and those of
// watch events are not; Scope.Pack packs both; neither packs nothing.
func TestPackLists(t *testing.T) {
	var items []string
	for i := range 80 { // about 90 KiB: the codec is learnt from the first 32 KiB
		items = append(items, fmt.Sprintf(`{"metadata":{"name":"cm-%02d","namespace":"ns","uid":"u%02d","resourceVersion":"%d"},"data":{"k":"%s"}}`, i, i, 10+i, strings.Repeat(fmt.Sprintf("value %02d ", i), 100)))
	}
	list := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[` + strings.Join(items, ",") + `]}`
	event := `{"type":"MODIFIED","object":` + strings.Replace(items[0], `"resourceVersion":"10"`, `"resourceVersion":"101"`, 1) + "}\n"
	tests := []struct {
		name                    string
		scope                   Scope
		listPacked, eventPacked bool
	}{
		{"PackLists", Scope{Shape: Shape{PackLists: true}}, true, false},
		{"Pack", Scope{Shape: Shape{Pack: true}}, true, true},
		{"neither", Scope{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(serve(t, &fakeAPI{status: http.StatusOK, body: list}), configMaps, tt.scope)
			page, err := c.List(t.Context(), watch.ListRequest{})
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			last := page.Items[len(page.Items)-1]
			if packed, _ := last.Packed(); packed != tt.listPacked {
				t.Errorf("listed object packed: %v, want %v", packed, tt.listPacked)
			}
			if !strings.Contains(string(last.JSON()), `"name":"cm-79"`) {
				t.Errorf("listed object's JSON: %.80s", last.JSON())
			}
			evs, err := readAll(t, newTestStream(event, c))
			if err != io.EOF || len(evs) != 1 {
				t.Fatalf("events %d, error %v; want 1 and EOF", len(evs), err)
			}
			if packed, _ := evs[0].Object.Packed(); packed != tt.eventPacked {
				t.Errorf("watched object packed: %v, want %v", packed, tt.eventPacked)
			}
			if got := evs[0].Object.ResourceVersion; got != "101" {
				t.Errorf("watched object's resourceVersion %q", got)
			}
		})
	}
}
