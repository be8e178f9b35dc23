package blame

import (
	"reflect"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// FuzzParsePath: any text is a path or an error, never a panic, and a
// path reads back from its String.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"spec.replicas", "{.spec.containers[0].image}", `metadata.labels['a.b/c']`, `a\.b`, "x[1][2]", `["q\"x"]`, "{}", "a..b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		again, err := ParsePath(p.String())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("ParsePath(%q) = %#v, String %q, read back as %#v, %v", s, p, p.String(), again, err)
		}
		p.Lookup([]byte(`{"spec":{"replicas":1,"containers":[{"image":"x"}]}}`))
	})
}

// FuzzBlame: any two revisions' JSON blame and log without a panic, and
// every line of the last is blamed on one of them.
func FuzzBlame(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,2]},"c":"x"}`), []byte(`{"a":{"b":[2]},"c":"y\nz"}`))
	f.Add([]byte(`{"l":[{"name":"a","v":1},{"name":"b"}]}`), []byte(`{"l":[{"name":"c"},{"name":"a","v":2}]}`))
	f.Add([]byte(`{"metadata":{"managedFields":[{"manager":"m"}]}}`), []byte(`[1]`))
	f.Fuzz(func(t *testing.T, first, second []byte) {
		revs := []history.Revision{{RV: 1, Op: history.Added, Object: first}, {RV: 2, Op: history.Modified, Manager: "m", Object: second}}
		lines, err := Blame(revs)
		for _, l := range lines {
			if l.Change.RV != 1 && l.Change.RV != 2 {
				t.Fatalf("line %q blamed on %d", l.Text, l.Change.RV)
			}
		}
		_ = err
		Log(revs, Path{{Key: "a"}})
	})
}
