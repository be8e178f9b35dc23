package object

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// Path names fields of an object, as a person types one on a command
// line (ParsePath): dotted keys with list indexes,
// spec.template.spec.containers[0].image, or kubectl's JSONPath form of
// the same, {.spec.replicas}; a key that holds dots is quoted,
// metadata.labels['app.kubernetes.io/name']; [*] is every element of a
// list (or value of a map). diff --ignore removes what a Path names
// (Delete); blame --field follows the one field a Path without [*] names
// (Lookup).
type Path struct {
	steps []Step
}

// Step is one move down a document: into a map's Key, a list's Index
// (List), or every element or value (Every).
type Step struct {
	Key   string
	Index int
	List  bool
	Every bool
}

// String is p as ParsePath reads it back to the same Path: dotted keys,
// indexes and [*] in brackets, a key that holds anything but letters,
// digits and _-/:+=~ quoted (['app.kubernetes.io/name']).
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p.steps {
		switch {
		case s.Every:
			b.WriteString("[*]")
		case s.List:
			fmt.Fprintf(&b, "[%d]", s.Index)
		case !plain(s.Key):
			fmt.Fprintf(&b, "['%s']", quoteKey.Replace(s.Key))
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

// plain says whether key reads back as itself outside brackets.
func plain(key string) bool {
	if key == "" || key[0] == '$' {
		return false
	}
	for _, c := range []byte(key) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-/:+=~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

var quoteKey = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// Wildcard says whether p holds a [*], and so may name more than one
// field.
func (p Path) Wildcard() bool {
	for _, s := range p.steps {
		if s.Every {
			return true
		}
	}
	return false
}

// Lookup is the value at p in doc (JSON), and whether it is there. A
// Wildcard path names no one value: it is never there.
func (p Path) Lookup(doc []byte) (gjson.Result, bool) {
	v := gjson.ParseBytes(doc)
	for _, s := range p.steps {
		var next gjson.Result
		found := false
		switch {
		case !s.List && !s.Every && v.IsObject():
			v.ForEach(func(k, val gjson.Result) bool {
				if k.Str == s.Key {
					next, found = val, true
					return false
				}
				return true
			})
		case s.List && v.IsArray():
			i := 0
			v.ForEach(func(_, val gjson.Result) bool {
				if i == s.Index {
					next, found = val, true
					return false
				}
				i++
				return true
			})
		}
		if !found {
			return gjson.Result{}, false
		}
		v = next
	}
	return v, true
}

// Delete removes the fields p names from doc, a JSON document decoded
// into maps and slices (encoding/json's), in place; a map or list that
// this leaves empty goes too (a label ignored on both sides of a diff
// must not leave "labels: {}" on one). It returns doc, or nil when doc
// itself went, and says whether anything was removed.
func (p Path) Delete(doc any) (any, bool) {
	if len(p.steps) == 0 {
		return doc, false
	}
	return deleteSteps(doc, p.steps)
}

// deleteSteps removes steps' fields from v; see Path.Delete.
func deleteSteps(v any, steps []Step) (any, bool) {
	st, last := steps[0], len(steps) == 1
	removed := false
	switch c := v.(type) {
	case map[string]any:
		for _, k := range st.keys(c) {
			if last {
				delete(c, k)
				removed = true
				continue
			}
			child, gone := deleteSteps(c[k], steps[1:])
			if child == nil && gone {
				delete(c, k)
			} else {
				c[k] = child // a list may have shrunk
			}
			removed = removed || gone
		}
		if removed && len(c) == 0 {
			return nil, true
		}
	case []any:
		keep := c[:0]
		for i, e := range c {
			if !st.Every && !(st.List && i == st.Index) {
				keep = append(keep, e)
				continue
			}
			if last {
				removed = true
				continue
			}
			child, gone := deleteSteps(e, steps[1:])
			removed = removed || gone
			if child != nil || !gone {
				keep = append(keep, child)
			}
		}
		clear(c[len(keep):])
		if removed && len(keep) == 0 {
			return nil, true
		}
		return keep, removed
	}
	return v, removed
}

// keys are the keys of m that st names: its key, if m has it, or every
// one.
func (st Step) keys(m map[string]any) []string {
	if st.Every {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		return keys
	}
	if _, ok := m[st.Key]; !st.List && ok {
		return []string{st.Key}
	}
	return nil
}
