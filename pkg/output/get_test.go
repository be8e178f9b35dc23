package output

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"testing"
	"time"

	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

var (
	cmKind     = Kind{Kind: "ConfigMap", Version: "v1", Resource: "configmaps", Namespaced: true}
	secretKind = Kind{Kind: "Secret", Version: "v1", Resource: "secrets", Namespaced: true}
)

// TestWithKind: kubectl names the kind in its tables when its answer holds
// several kinds: every kind listed counts, empty or not; of names, only the
// objects found.
func TestWithKind(t *testing.T) {
	cm, secret := Group{Kind: cmKind}, Group{Kind: secretKind}
	with := func(g Group, names []string, objs []*object.Object) Group {
		g.Names, g.Objects = names, objs
		return g
	}
	a := []*object.Object{{Name: "a"}}
	tests := []struct {
		name   string
		groups []Group
		want   bool
	}{
		{"one kind", []Group{with(cm, nil, a)}, false},
		{"two kinds listed, one empty", []Group{with(cm, nil, a), secret}, true},
		{"two kinds named, one found", []Group{with(cm, []string{"a"}, a), with(secret, []string{"a"}, nil)}, false},
		{"two kinds named, both found", []Group{with(cm, []string{"a"}, a), with(secret, []string{"a"}, a)}, true},
		{"one kind named twice", []Group{with(cm, []string{"a"}, a), with(secret, []string{"b"}, nil), with(cm, []string{"a"}, a)}, false},
		{"one kind in two namespaces (a manifest)", []Group{with(cm, []string{"a"}, a), with(Group{Kind: cmKind}, []string{"b"}, a)}, false},
		{"nothing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WithKind(tt.groups); got != tt.want {
				t.Errorf("WithKind = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestTables: kubectl starts a table where the resource changes among the
// objects it prints, so arguments that found nothing do not split a table.
func TestTables(t *testing.T) {
	a, b, c := &object.Object{Name: "a"}, &object.Object{Name: "b"}, &object.Object{Name: "c"}
	got := Tables([]Group{
		{Kind: cmKind, Objects: []*object.Object{a}},
		{Kind: secretKind}, // secret/nope
		{Kind: cmKind, Objects: []*object.Object{b}},
		{Kind: secretKind, Objects: []*object.Object{c}},
		{Kind: cmKind},
	})
	want := []Group{{Kind: cmKind, Objects: []*object.Object{a, b}}, {Kind: secretKind, Objects: []*object.Object{c}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tables = %+v, want %+v", got, want)
	}
}

// TestPrintTablesContexts: the objects of several contexts print as one
// table per kind, CONTEXT first and NAMESPACE after it with -A, aligned
// as kubectl aligns a table; names are the context, a space, then
// kubectl's; objects carry the context as an annotation.
func TestPrintTablesContexts(t *testing.T) {
	a, b := configMap(t, "default", "settings", time.Hour, map[string]string{"k": "v"}), configMap(t, "web", "other", time.Hour, nil)
	groups := []Group{
		{Kind: cmKind, Objects: []*object.Object{a, b}, Columns: configMapColumns, Contexts: []string{"prod", "prod"}},
		{Kind: cmKind, Objects: []*object.Object{a}, Columns: configMapColumns, Contexts: []string{"staging-eu"}},
	}
	flags := get.NewGetPrintFlags()
	var out bytes.Buffer
	if _, err := PrintTables(&out, Tables(groups), false, GetOptions{Flags: flags, AllNamespaces: true}); err != nil {
		t.Fatal(err)
	}
	want := "CONTEXT      NAMESPACE   NAME       DATA   AGE\n" +
		"prod         default     settings   1      AGE\n" +
		"prod         web         other      0      AGE\n" +
		"staging-eu   default     settings   1      AGE\n"
	if regexp.MustCompile(`(?m)\d+\w+$`).ReplaceAllString(out.String(), "AGE") != want { // the fixtures' ages are from a fixed time
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	for format, want := range map[string]string{
		"name": "prod configmap/settings\nprod configmap/other\nstaging-eu configmap/settings\n",
		`jsonpath={.items[*].metadata.annotations.kubectl-reflect\.io/context}`: "prod prod staging-eu",
	} {
		flags := get.NewGetPrintFlags()
		*flags.OutputFormat = format
		out.Reset()
		if err := PrintObjects(&out, groups, GetOptions{Flags: flags}); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("-o %s: got %q, want %q", format, out.String(), want)
		}
	}
}

// BenchmarkPrintTables is `get cm -A`'s printing of 100,000 ConfigMaps
// from their objects and cells (what the live get and get --at share):
// the cost reported is per object.
func BenchmarkPrintTables(b *testing.B) {
	const n = 100_000
	objs := make([]*object.Object, n)
	for i := range objs {
		objs[i] = configMap(b, fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("cm-%06d", i), time.Duration(i)*time.Second, map[string]string{"k": "v"})
	}
	tables := Tables([]Group{{Kind: cmKind, Objects: objs, Columns: configMapColumns}})
	opts := GetOptions{Flags: get.NewGetPrintFlags(), AllNamespaces: true, Now: testNow}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PrintTables(io.Discard, tables, false, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
}
