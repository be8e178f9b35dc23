package kube

import (
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// TestDecodeListStreams: a LIST answer is decoded from a stream however it
// is cut into reads, whatever the order of its members, and a broken one is
// an error, never a short list.
func TestDecodeListStreams(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // beyond the reader's first buffer
	cm := func(name, rv, data string) string {
		return `{"metadata":{"name":"` + name + `","namespace":"ns","uid":"u-` + name + `","resourceVersion":"` + rv + `"},"data":{"k":"` + data + `"}}`
	}
	want := func(names ...string) []item {
		out := []item{}
		for _, n := range names {
			out = append(out, item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: n, uid: "u-" + n, rv: "1"})
		}
		return out
	}
	tests := []struct {
		name      string
		body      string
		wantItems []item
		wantRV    string
		wantCont  string
		wantCols  []object.Column
		wantErr   string
	}{{
		name:      "items after metadata",
		body:      `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"c"},"items":[` + cm("a", "1", "v") + "," + cm("b", "1", big) + `]}`,
		wantItems: want("a", "b"), wantRV: "10", wantCont: "c",
	}, {
		name:      "metadata after items, whitespace everywhere",
		body:      " {\n \"items\" : [ " + cm("a", "1", `q\"}]`) + " ] ,\n\"metadata\":{\"resourceVersion\":\"11\"} , \"extra\":[{\"a\":[1,2,{}]},\"]\"]}\n",
		wantItems: want("a"), wantRV: "11",
	}, {
		name:      "escaped keys",
		body:      `{"it\u0065ms":[` + cm("a", "1", "v") + `],"metadata":{"resourceVersion":"12"}}`,
		wantItems: want("a"), wantRV: "12",
	}, {
		name:      "null and empty items",
		body:      `{"items":null,"metadata":{"resourceVersion":"13"}}`,
		wantItems: []item{}, wantRV: "13",
	}, {
		name:      "empty object",
		body:      `{}`,
		wantItems: []item{},
	}, {
		name: "table rows",
		body: `{"kind":"Table","metadata":{"resourceVersion":"14"},"columnDefinitions":[{"name":"Name","type":"string","format":"name","priority":0}],` +
			`"rows":[{"cells":["a"],"object":` + cm("a", "1", "v") + `}]}`,
		wantItems: []item{{apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "a", uid: "u-a", rv: "1", cells: `["a"]`}},
		wantRV:    "14", wantCols: []object.Column{{Name: "Name", Type: "string", Format: "name"}},
	}, {
		name:    "truncated inside an item",
		body:    `{"metadata":{"resourceVersion":"10"},"items":[` + cm("a", "1", "v")[:30],
		wantErr: "unexpected EOF",
	}, {
		name:    "truncated after an item",
		body:    `{"metadata":{"resourceVersion":"10"},"items":[` + cm("a", "1", "v"),
		wantErr: "unexpected EOF",
	}, {
		name:    "truncated before the end",
		body:    `{"metadata":{"resourceVersion":"10"},"items":[]`,
		wantErr: "unexpected EOF",
	}, {
		name:    "malformed item",
		body:    `{"items":[{"metadata":}]}`,
		wantErr: "malformed JSON",
	}, {
		name:    "items not an array",
		body:    `{"items":{"a":1}}`,
		wantErr: "expected a JSON array",
	}, {
		name:    "not an object",
		body:    `[]`,
		wantErr: "the list is not a JSON object",
	}, {
		name:    "missing colon",
		body:    `{"items" []}`,
		wantErr: "malformed JSON",
	}}
	for _, tt := range tests {
		for rname, reader := range chunkings {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				page, cols, err := decodeList(reader(tt.body), decodingOf(configMaps, Scope{}))
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("error = %v, want one saying %q", err, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				checkPage(t, page, cols, wantPage{tt.wantItems, tt.wantRV, tt.wantCont, tt.wantCols})
			})
		}
	}
}
