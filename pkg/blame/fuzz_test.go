package blame

import (
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

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
		Log(revs, object.MustParsePath("a"))
	})
}
