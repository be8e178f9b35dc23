package kube

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// TestGet: Get asks for the object's path with the scope's Accept and no
// selector, and decodes the object, its metadata, or a Table's one row
// (whose columns it keeps).
func TestGet(t *testing.T) {
	const (
		oneConfigMap = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns1","uid":"ua","resourceVersion":"10","managedFields":[{"manager":"m"}]},"data":{"k":"v"}}`
		oneMetadata  = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"ns1","uid":"ua","resourceVersion":"10"}}`
		oneRow       = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"150"},"columnDefinitions":[
			{"name":"Name","type":"string","format":"name","description":"Name must be unique","priority":0},
			{"name":"Data","type":"integer","format":"","description":"","priority":0},
			{"name":"Age","type":"string","format":"","description":"","priority":1}],
			"rows":[{"cells":["a",1,"5m"],"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns1","uid":"ua","resourceVersion":"150"}}}]}`
	)
	tests := []struct {
		name       string
		body       string
		scope      Scope
		wantAccept string
		want       item
		wantCols   []object.Column
	}{
		{"object", oneConfigMap, Scope{Namespace: "ns1", LabelSelector: "a=b", FieldSelector: "metadata.name=a"}, "application/json",
			item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "10"}, nil},
		{"metadata", oneMetadata, Scope{Namespace: "ns1", Shape: Shape{MetadataOnly: true}}, metadataAccept,
			item{apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", namespace: "ns1", name: "a", uid: "ua", rv: "10"}, nil},
		{"Table", oneRow, Scope{Namespace: "ns1", Shape: Shape{Table: true, MetadataOnly: true}}, tableAccept,
			item{apiVersion: "v1", kind: "ConfigMap", namespace: "ns1", name: "a", uid: "ua", rv: "150", cells: `["a",1,"5m"]`}, configMapColumns},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{status: http.StatusOK, body: tt.body}
			c := NewClient(serve(t, api), configMaps, tt.scope)
			obj, err := c.Get(t.Context(), "a", "")
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			req := api.last(t)
			if req.URL.Path != "/api/v1/namespaces/ns1/configmaps/a" || req.URL.Query().Has("labelSelector") || req.URL.Query().Has("fieldSelector") {
				t.Errorf("request %s, want the object's path without selectors", req.URL)
			}
			if got := req.Header.Get("Accept"); got != tt.wantAccept {
				t.Errorf("Accept = %q, want %q", got, tt.wantAccept)
			}
			if got := describe(t, obj); got != tt.want {
				t.Errorf("object = %+v, want %+v", got, tt.want)
			}
			if cols := c.Columns(); !reflect.DeepEqual(cols, tt.wantCols) {
				t.Errorf("Columns() = %+v, want %+v", cols, tt.wantCols)
			}
		})
	}
}
