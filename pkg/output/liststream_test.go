package output

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// listFixtures are objects whose JSON kubectl's printers rewrite: keys out
// of order, HTML characters, \u escapes, numbers of every shape, empty and
// nested collections, long and multi-line strings the YAML emitter folds or
// quotes, and several kinds in one List.
func listFixtures(t testing.TB) []*object.Object {
	long := strings.Repeat("a rather long line of words that the YAML emitter folds ", 4)
	raw := []string{
		`{"metadata":{"namespace":"ns","name":"b"},"kind":"ConfigMap","apiVersion":"v1","data":{"z":"1","a":"<b>&amp;</b>","u":"caf\u00e9 \u2028 \ud83d\ude00","long":"` + long + `","lines":"one\ntwo\n  three\n","lead":"  leading spaces\nx","quote":"\"yes\"","num":"007","bool":"true","empty":""}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","labels":{},"annotations":{"x/y":"` + long + `"}},"binaryData":{"b":"AAEC"}}`,
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"size":3,"ratio":1.0,"big":12345678901234567890,"exp":1e3,"neg":-0.5,"tiny":1e-9,"nil":null,"list":[],"obj":{},"nested":[[1,[2,{}]],{"k":[true,false]}]}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"ns"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.27","args":["--a=b","- dash","key: value","#hash"]}]}}}}`,
	}
	var objs []*object.Object
	for _, r := range raw {
		obj, err := object.Decode([]byte(r), object.Prune{})
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

// kubectlList prints List(objs) with the printer `kubectl get -o format`
// builds, the way `get` printed every List before WriteList.
func kubectlList(t testing.TB, format string, objs []*object.Object) string {
	t.Helper()
	pf := get.NewGetPrintFlags()
	pf.OutputFormat = &format
	p, err := pf.ToPrinter()
	if err != nil {
		t.Fatal(err)
	}
	list, err := List(objs)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := p.PrintObj(list, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestWriteListMatchesKubectlPrinters: WriteList prints byte for byte what
// kubectl's json and yaml printers print of the whole List, for no object,
// one, and several of several kinds.
func TestWriteListMatchesKubectlPrinters(t *testing.T) {
	objs := listFixtures(t)
	for _, format := range []string{"json", "yaml"} {
		for _, n := range []int{0, 1, 2, len(objs)} {
			var got bytes.Buffer
			if err := WriteList(&got, format, objs[:n]); err != nil {
				t.Fatalf("%s, %d objects: %v", format, n, err)
			}
			if want := kubectlList(t, format, objs[:n]); got.String() != want {
				t.Errorf("%s, %d objects: differs from kubectl's printer\n--- WriteList:\n%s\n--- kubectl:\n%s", format, n, got.String(), want)
			}
		}
	}
}

func TestWriteListErrors(t *testing.T) {
	if err := WriteList(&bytes.Buffer{}, "name", nil); err == nil {
		t.Error("name: no error")
	}
	broken := object.FromJSON([]byte(`{"kind":`))
	if err := WriteList(&bytes.Buffer{}, "json", []*object.Object{broken}); err == nil {
		t.Error("broken JSON: no error")
	}
	closed := errors.New("closed")
	if err := WriteList(failingWriter{closed}, "yaml", listFixtures(t)); !errors.Is(err, closed) {
		t.Errorf("write error: got %v, want %v", err, closed)
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// BenchmarkWriteList prints a List of 1,000 ConfigMaps of 1 KiB as
// `get -o json|yaml` does.
func BenchmarkWriteList(b *testing.B) {
	objs := make([]*object.Object, 1000)
	for i := range objs {
		objs[i] = configMap(b, "ns", "cm-"+strings.Repeat("x", i%7), 0, map[string]string{"k": strings.Repeat("v", 1024)})
	}
	for _, format := range []string{"json", "yaml"} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := WriteList(discard{}, format, objs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
