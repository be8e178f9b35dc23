package object

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const (
	lastAppliedKey = "kubectl.kubernetes.io/last-applied-configuration"
	// full has every field Decode reads or prunes, and another annotation on
	// each side of the last-applied one.
	full = `{
	"apiVersion": "v1", "kind": "ConfigMap",
	"metadata": {
		"namespace": "ns1", "name": "cm1", "uid": "u-1", "resourceVersion": "42",
		"annotations": {
			"a": "1",
			"kubectl.kubernetes.io/last-applied-configuration": "{\"kind\":\"ConfigMap\"}\n",
			"z": "2"
		},
		"managedFields": [{"manager": "kubectl", "operation": "Apply"}]
	},
	"data": {"k": "v"}
}`
)

// TestDecode: Decode reads the identifying metadata and drops exactly the
// fields it was told to, leaving valid JSON and every other field.
func TestDecode(t *testing.T) {
	tests := []struct {
		name            string
		raw             string
		prune           Prune
		wantManaged     bool
		wantLastApplied bool
		wantAnnotations []string // keys, in order
	}{{
		name: "no pruning", raw: full,
		wantManaged: true, wantLastApplied: true,
		wantAnnotations: []string{"a", lastAppliedKey, "z"},
	}, {
		name: "managedFields only", raw: full, prune: Prune{ManagedFields: true},
		wantManaged: false, wantLastApplied: true,
		wantAnnotations: []string{"a", lastAppliedKey, "z"},
	}, {
		name: "last-applied only", raw: full, prune: Prune{LastApplied: true},
		wantManaged: true, wantLastApplied: false,
		wantAnnotations: []string{"a", "z"},
	}, {
		name: "both", raw: full, prune: Prune{ManagedFields: true, LastApplied: true},
		wantManaged: false, wantLastApplied: false,
		wantAnnotations: []string{"a", "z"},
	}, {
		name:            "last-applied as the only annotation",
		raw:             `{"metadata":{"namespace":"ns1","name":"cm1","uid":"u-1","resourceVersion":"42","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"data":{"k":"v"}}`,
		prune:           Prune{ManagedFields: true, LastApplied: true},
		wantAnnotations: []string{},
	}, {
		name:            "last-applied as the last annotation",
		raw:             `{"metadata":{"namespace":"ns1","name":"cm1","uid":"u-1","resourceVersion":"42","annotations":{"a":"1","kubectl.kubernetes.io/last-applied-configuration":"{}"}},"data":{"k":"v"}}`,
		prune:           Prune{LastApplied: true},
		wantAnnotations: []string{"a"},
	}, {
		name:            "keys spelt with escapes",
		raw:             `{"metadata":{"namespace":"ns1","name":"cm1","uid":"u-1","resourceVersion":"42","managed\u0046ields":[],"annotations":{"kubectl.kubernetes.io\/last-applied-configur\u0061tion":"{}"}},"data":{"k":"v"}}`,
		prune:           Prune{ManagedFields: true, LastApplied: true},
		wantAnnotations: []string{},
	}, {
		name:  "nothing to prune",
		raw:   `{"metadata":{"namespace":"ns1","name":"cm1","uid":"u-1","resourceVersion":"42"},"data":{"k":"v"}}`,
		prune: Prune{ManagedFields: true, LastApplied: true},
	}, {
		name:        "surrounding whitespace",
		raw:         "\n\t " + `{"metadata":{"namespace":"ns1","name":"cm1","uid":"u-1","resourceVersion":"42","managedFields":[]},"data":{"k":"v"}}` + " \n",
		wantManaged: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Decode([]byte(tt.raw), tt.prune)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got := [4]string{o.Namespace, o.Name, o.UID, o.ResourceVersion}
			if want := [4]string{"ns1", "cm1", "u-1", "42"}; got != want {
				t.Errorf("namespace, name, uid, resourceVersion = %q, want %q", got, want)
			}
			if o.GetNamespace() != "ns1" || o.GetName() != "cm1" || o.GetResourceVersion() != "42" {
				t.Errorf("getters = %q %q %q", o.GetNamespace(), o.GetName(), o.GetResourceVersion())
			}
			if !json.Valid(o.JSON()) {
				t.Fatalf("JSON() is not valid JSON: %s", o.JSON())
			}
			if o.Cells != nil {
				t.Errorf("Cells = %s, want nil", o.Cells)
			}
			if got := gjson.GetBytes(o.JSON(), "metadata.managedFields").Exists(); got != tt.wantManaged {
				t.Errorf("managedFields kept = %v, want %v: %s", got, tt.wantManaged, o.JSON())
			}
			if got := gjson.GetBytes(o.JSON(), `metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`).Exists(); got != tt.wantLastApplied {
				t.Errorf("last-applied kept = %v, want %v: %s", got, tt.wantLastApplied, o.JSON())
			}
			if tt.wantAnnotations != nil {
				keys := []string{}
				gjson.GetBytes(o.JSON(), "metadata.annotations").ForEach(func(k, _ gjson.Result) bool {
					keys = append(keys, k.Str)
					return true
				})
				if !reflect.DeepEqual(keys, tt.wantAnnotations) {
					t.Errorf("annotations = %q, want %q", keys, tt.wantAnnotations)
				}
			}
			if got := gjson.GetBytes(o.JSON(), "data.k").Str; got != "v" {
				t.Errorf("data.k = %q, want the untouched %q", got, "v")
			}
		})
	}
}

// TestDecodePruneLeavesInputAlone: pruning works on a copy; the caller's
// bytes (often a shared buffer) are not rewritten.
func TestDecodePruneLeavesInputAlone(t *testing.T) {
	in := []byte(full)
	if _, err := Decode(in, Prune{ManagedFields: true, LastApplied: true}); err != nil {
		t.Fatal(err)
	}
	if string(in) != full {
		t.Errorf("Decode changed its input:\n%s", in)
	}
}

// TestDecodeCopiesIdentity: an object's identity owns its bytes, whichever
// of its fields are empty: the caller reuses the buffer it decoded from (the
// fuzzer found a name that changed with the next read when uid and
// resourceVersion were missing).
func TestDecodeCopiesIdentity(t *testing.T) {
	for _, raw := range []string{
		`{"metadata":{"name":"a"}}`,
		`{"metadata":{"namespace":"n","name":"a"}}`,
		`{"metadata":{"name":"a","uid":"u"}}`,
		`{"metadata":{"resourceVersion":"1"}}`,
		`{"metadata":{"name":"a","uid":"u","resourceVersion":"1"}}`,
	} {
		t.Run(raw, func(t *testing.T) {
			buf := []byte(raw)
			o, err := Decode(buf, Prune{})
			if err != nil {
				t.Fatal(err)
			}
			before := *o
			for i := range buf {
				buf[i] = 'x'
			}
			if o.Namespace != before.Namespace || o.Name != before.Name || o.UID != before.UID || o.ResourceVersion != before.ResourceVersion {
				t.Fatalf("identity changed with the buffer: %+v", o)
			}
			if got := strings.Join([]string{o.Namespace, o.Name, o.UID, o.ResourceVersion}, "|"); strings.Contains(got, "x") {
				t.Fatalf("identity %q reads the caller's buffer", got)
			}
		})
	}
}

// TestDecodeRejectsNonObjects: anything but a JSON object is an error.
func TestDecodeRejectsNonObjects(t *testing.T) {
	for _, raw := range []string{"", "   ", "null", "[]", `[{"metadata":{}}]`, `"x"`, "42", "true", "garbage"} {
		t.Run(raw, func(t *testing.T) {
			if o, err := Decode([]byte(raw), Prune{ManagedFields: true, LastApplied: true}); err == nil {
				t.Errorf("Decode(%q) = %+v, want an error", raw, o)
			}
		})
	}
}

// TestUnstructured: the JSON decodes to the same object, pruned as asked.
func TestUnstructured(t *testing.T) {
	tests := []struct {
		name  string
		prune Prune
	}{
		{"unpruned", Prune{}},
		{"pruned", Prune{ManagedFields: true, LastApplied: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Decode([]byte(full), tt.prune)
			if err != nil {
				t.Fatal(err)
			}
			u, err := o.Unstructured()
			if err != nil {
				t.Fatalf("Unstructured: %v", err)
			}
			if u.GetKind() != "ConfigMap" || u.GetAPIVersion() != "v1" || u.GetNamespace() != "ns1" ||
				u.GetName() != "cm1" || string(u.GetUID()) != "u-1" || u.GetResourceVersion() != "42" {
				t.Errorf("Unstructured = %s %s %s/%s uid %s rv %s", u.GetAPIVersion(), u.GetKind(),
					u.GetNamespace(), u.GetName(), u.GetUID(), u.GetResourceVersion())
			}
			var want map[string]any
			if err := json.Unmarshal(o.JSON(), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(u.Object, want) {
				t.Errorf("Unstructured().Object = %v, want the JSON decoded: %v", u.Object, want)
			}
			back, err := u.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var again map[string]any
			if err := json.Unmarshal(back, &again); err != nil || !reflect.DeepEqual(again, want) {
				t.Errorf("MarshalJSON of Unstructured = %s (%v), want %s", back, err, o.JSON())
			}
			if _, present := want["metadata"].(map[string]any)["managedFields"]; present == tt.prune.ManagedFields {
				t.Errorf("managedFields present = %v with %+v", present, tt.prune)
			}
		})
	}
}

// TestUnstructuredError names the object whose JSON does not decode.
func TestUnstructuredError(t *testing.T) {
	o := &Object{Namespace: "ns1", Name: "cm1", data: `{"kind":`}
	if _, err := o.Unstructured(); err == nil || !strings.Contains(err.Error(), "ns1/cm1") {
		t.Errorf("Unstructured = %v, want an error naming ns1/cm1", err)
	}
}

// TestDecodeCellsAsKubectl: DecodeCells gives what kubectl's JSON decoder
// (k8s.io/apimachinery/pkg/util/json) gives for a []any, whatever the cells:
// escapes, numbers of every form, nesting.
func TestDecodeCellsAsKubectl(t *testing.T) {
	for _, cells := range []string{
		`[]`, ` [ "a" , 1 ] `, `["\u00e9\n\"q\"", "café 😀", "<b>&amp;</b>", ""]`,
		`[0, -0, 1.5, -2e3, 1E-7, 123456789012345678901234567890, 0.1]`,
		`[true, false, null, {}, [], {"k": {"n": [1, {"x": null}]}}]`,
	} {
		o := &Object{Namespace: "ns1", Name: "cm1", data: `{}`, Cells: []byte(cells)}
		got, err := o.DecodeCells()
		want, wantErr := o.decodeCellsJSON()
		if err != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: DecodeCells = %#v, %v; kubectl's decoder: %#v, %v", cells, got, err, want, wantErr)
		}
	}
}

// BenchmarkDecodeCells: a ConfigMap's row of printer cells, as get reads
// 20,000 of them, against kubectl's JSON decoder.
func BenchmarkDecodeCells(b *testing.B) {
	o := &Object{data: `{}`, Cells: []byte(`["bench-000123",1,"5m2s"]`)}
	b.Run("gjson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := o.DecodeCells(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("util-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := o.decodeCellsJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDecodeCells: the printer cells are a JSON array of any values.
func TestDecodeCells(t *testing.T) {
	tests := []struct {
		name    string
		cells   []byte
		want    []any
		wantErr bool
	}{
		{name: "none", cells: nil, want: nil},
		{name: "empty", cells: []byte(`[]`), want: []any{}},
		{name: "mixed", cells: []byte(`["cm1", 2, "5m", null, true]`), want: []any{"cm1", int64(2), "5m", nil, true}},
		{name: "numbers", cells: []byte(`[2000000000, -0, 1.5, 1e3, 1.0, 123456789012345678901234567890]`),
			want: []any{int64(2000000000), int64(0), 1.5, float64(1000), float64(1), 1.2345678901234568e+29}},
		{name: "not an array", cells: []byte(`{"a":1}`), wantErr: true},
		{name: "malformed", cells: []byte(`["cm1",`), wantErr: true},
		{name: "a number out of range", cells: []byte(`["cm1", 1e999]`), wantErr: true},
		{name: "an object and an array", cells: []byte(`[{"a":[1,"b"]}, [null]]`), want: []any{map[string]any{"a": []any{int64(1), "b"}}, []any{nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &Object{Namespace: "ns1", Name: "cm1", data: `{}`, Cells: tt.cells}
			got, err := o.DecodeCells()
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), "ns1/cm1") {
					t.Errorf("DecodeCells = %v, %v; want an error naming ns1/cm1", got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecodeCells = %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
}

// TestDecodeMetadataOnlyUnless: an object that mentions none of the
// markers keeps apiVersion, kind and metadata (without managedFields and
// last-applied); one that mentions any of them is pruned as usual.
func TestDecodeMetadataOnlyUnless(t *testing.T) {
	const owned = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns1","name":"cm1","uid":"u-1","resourceVersion":"42",` +
		`"ownerReferences":[{"kind":"Gen","name":"g","controller":true}],"managedFields":[{"manager":"me"}]},"data":{"k":"v"}}`
	tests := []struct {
		name, raw, markers string
		want               string
	}{{
		name: "foreign", raw: full, markers: "\"Gen\"\n\"me\"",
		want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns1","name":"cm1","uid":"u-1","resourceVersion":"42","annotations":{"a":"1","z":"2"}}}`,
	}, {
		name: "owned by the first marker", raw: owned, markers: "\"Gen\"\n\"other\"", want: owned,
	}, {
		name: "applied by the second marker", raw: owned, markers: "\"other\"\n\"me\"", want: owned,
	}, {
		name: "type metadata after the metadata", markers: "x",
		raw:  `{"metadata":{"name":"cm1"},"data":{"k":"v"},"kind":"ConfigMap","apiVersion":"v1"}`,
		want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"}}`,
	}, {
		name: "no metadata", markers: "x", raw: `{"data":{"k":"v"}}`, want: `{}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Decode([]byte(tt.raw), Prune{MetadataOnlyUnless: tt.markers})
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			var got, want any
			if err := json.Unmarshal(o.JSON(), &got); err != nil {
				t.Fatalf("JSON() is not valid JSON: %v: %s", err, o.JSON())
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("JSON() = %s, want %s", o.JSON(), tt.want)
			}
		})
	}
}

// TestPruneMeet: the meet prunes what both prune; two lists of markers
// unite, one object kept whole by either stays whole.
func TestPruneMeet(t *testing.T) {
	slimA := Prune{MetadataOnlyUnless: "a\nb"}
	slimB := Prune{MetadataOnlyUnless: "b\nc", ManagedFields: true}
	tests := []struct {
		name string
		p, q Prune
		want Prune
	}{
		{"same", slimA, slimA, slimA},
		{"whole wins", slimA, Prune{}, Prune{}},
		{"flags both prune", Prune{ManagedFields: true, LastApplied: true}, Prune{ManagedFields: true}, Prune{ManagedFields: true}},
		{"markers unite", slimA, slimB, Prune{MetadataOnlyUnless: "a\nb\nc"}},
	}
	for _, tt := range tests {
		if got := tt.p.Meet(tt.q); got != tt.want {
			t.Errorf("%s: %+v.Meet(%+v) = %+v, want %+v", tt.name, tt.p, tt.q, got, tt.want)
		}
	}
}

// TestWithAnnotation: the annotation is added beside the others (a key
// with dots and a slash is one key), the original is unchanged, a packed
// object's too.
func TestWithAnnotation(t *testing.T) {
	for _, raw := range []string{
		`{"kind":"ConfigMap","metadata":{"name":"a","namespace":"n","resourceVersion":"5","annotations":{"x":"y"}}}`,
		`{"kind":"ConfigMap","metadata":{"name":"a","namespace":"n","resourceVersion":"5"}}`,
	} {
		o, err := Decode([]byte(raw), Prune{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := o.WithAnnotation("kubectl-reflect.io/context", "prod")
		if err != nil {
			t.Fatal(err)
		}
		if v := gjson.GetBytes(got.JSON(), `metadata.annotations.kubectl-reflect\.io/context`).Str; v != "prod" || got.Name != "a" || got.ResourceVersion != "5" {
			t.Errorf("%s annotated: %s", raw, got.JSON())
		}
		if string(o.JSON()) != raw {
			t.Errorf("the original changed: %s", o.JSON())
		}
	}
}
