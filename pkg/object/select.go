package object

import (
	"strings"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/fields"
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

// MatchFields returns a filter that keeps the objects whose fields match
// sel. A field is any dotted path into the object (metadata.name,
// status.phase, spec.nodeName, ...), a superset of what each kind's server
// accepts.
func MatchFields(sel fields.Selector) func(*Object) bool {
	if sel == nil || sel.Empty() {
		return func(*Object) bool { return true }
	}
	return func(o *Object) bool { return sel.Matches(rawFields{o.JSON()}) }
}

// OwnerUIDs is an index function: the UIDs of an object's owners.
func OwnerUIDs(o *Object) []string {
	var uids []string
	for _, uid := range gjson.GetBytes(o.JSON(), "metadata.ownerReferences.#.uid").Array() {
		uids = append(uids, uid.Str)
	}
	return uids
}

// rawLabels reads labels.Labels from the labels JSON object.
type rawLabels struct{ m gjson.Result }

func (l rawLabels) Has(key string) bool   { return l.m.Get(gjson.Escape(key)).Exists() }
func (l rawLabels) Get(key string) string { return l.m.Get(gjson.Escape(key)).String() }

func (l rawLabels) Lookup(key string) (string, bool) {
	v := l.m.Get(gjson.Escape(key))
	return v.String(), v.Exists()
}

// rawFields reads fields.Fields from an object's JSON.
type rawFields struct{ raw []byte }

func (f rawFields) path(field string) string {
	parts := strings.Split(field, ".")
	for i, p := range parts {
		parts[i] = gjson.Escape(p)
	}
	return strings.Join(parts, ".")
}

func (f rawFields) Has(field string) bool { return gjson.GetBytes(f.raw, f.path(field)).Exists() }

func (f rawFields) Get(field string) string {
	return gjson.GetBytes(f.raw, f.path(field)).String()
}
