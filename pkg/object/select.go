package object

import (
	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/labels"
)

// MatchLabels returns a filter that keeps the objects whose labels match
// sel. Labels are read from Raw as needed, never decoded into a map.
func MatchLabels(sel labels.Selector) func(*Object) bool {
	if sel == nil || sel.Empty() {
		return func(*Object) bool { return true }
	}
	return func(o *Object) bool { return sel.Matches(rawLabels{gjson.GetBytes(o.JSON(), "metadata.labels")}) }
}

// rawLabels reads labels.Labels from the labels JSON object.
type rawLabels struct{ m gjson.Result }

func (l rawLabels) Has(key string) bool   { return l.m.Get(gjson.Escape(key)).Exists() }
func (l rawLabels) Get(key string) string { return l.m.Get(gjson.Escape(key)).String() }

func (l rawLabels) Lookup(key string) (string, bool) {
	v := l.m.Get(gjson.Escape(key))
	return v.String(), v.Exists()
}
