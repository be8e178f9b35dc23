package history

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// diff is what changed at one path of an object, from old to cur (a
// value that is missing does not Exist): made only where cur exists and
// differs from old (a value that went away is owned by no entry of the
// object after the change). Its members and elements that changed are
// found the first time an entry's fieldsV1 looks at them and kept for the
// entries after it: each value is scanned once, however many entries
// there are.
type diff struct {
	old, cur gjson.Result
	members  map[string]*diff // of two objects, by name; nil until read
	elements map[string]*diff // of lists, by fieldsV1's name ("k:...")
	ignore   map[string]bool  // members no one owns (metadata's bookkeeping)
}

// bookkeeping are the fields of metadata the API server sets on every
// write, whoever writes: a change of them is no one's. (It strips them
// from every managedFields entry too: no entry claims them.)
var bookkeeping = map[string]bool{
	"resourceVersion": true, "generation": true, "managedFields": true,
	"creationTimestamp": true, "uid": true, "selfLink": true,
}

// changes is what changed from the object prev to doc (JSON), read in
// place: neither may change while it is in use.
func changes(prev, doc []byte) *diff {
	d := newDiff(gjson.Parse(unsafeString(prev)), gjson.Parse(unsafeString(doc)))
	if meta := d.member("metadata"); meta != nil {
		meta.ignore = bookkeeping
	}
	return d
}

// newDiff is the change from old to cur, nil when there is none (the same
// value, or cur missing).
func newDiff(old, cur gjson.Result) *diff {
	if !cur.Exists() || old.Exists() && sameValue(old, cur) {
		return nil
	}
	return &diff{old: old, cur: cur}
}

// member is the change of d's member name (nil: none).
func (d *diff) member(name string) *diff {
	if d.ignore[name] {
		return nil
	}
	if d.members == nil {
		d.members = map[string]*diff{}
		if !d.cur.IsObject() {
			return nil
		}
		olds := map[string]gjson.Result{}
		d.old.ForEach(func(k, v gjson.Result) bool { // nothing when old is not an object
			olds[k.Str] = v
			return true
		})
		d.cur.ForEach(func(k, v gjson.Result) bool {
			if c := newDiff(olds[k.Str], v); c != nil {
				d.members[k.Str] = c
			}
			return true
		})
	}
	return d.members[name]
}

// element is the change of the element of d's list that fieldsV1's name
// ("k:{KEYS}", "v:VALUE", "i:N") stands for (nil: none).
func (d *diff) element(name string) *diff {
	if c, ok := d.elements[name]; ok {
		return c
	}
	if d.elements == nil {
		d.elements = map[string]*diff{}
	}
	c := newDiff(element(d.old, name), element(d.cur, name))
	d.elements[name] = c
	return c
}

// ownedBy counts the changes of d that set, the node of a managedFields
// entry's fieldsV1 (structured-merge-diff's format) at d's path, owns:
//   - a leaf of set (an empty node: a field, or a list or map kept whole)
//     whose value is new or differs;
//   - "." (the map or list element itself) where it appeared;
//   - below: "f:NAME" a field of a map, "k:{KEYS}" the element of a list
//     with those keys' values, "v:VALUE" the element of a set with that
//     value, "i:N" the element at an index.
//
// An entry whose fieldsV1 is empty owns nothing (not the whole object).
func (d *diff) ownedBy(fields gjson.Result) int {
	if !fields.IsObject() || isLeaf(fields) {
		return 0
	}
	return d.owned(fields)
}

// owned is ownedBy below the object's root.
func (d *diff) owned(set gjson.Result) int {
	if d == nil || !set.IsObject() {
		return 0
	}
	if isLeaf(set) {
		return 1
	}
	n := 0
	set.ForEach(func(k, node gjson.Result) bool {
		switch name := k.Str; {
		case name == ".":
			if !d.old.Exists() {
				n++
			}
		case len(name) > 2 && name[:2] == "f:":
			n += d.member(name[2:]).owned(node)
		default:
			n += d.element(name).owned(node)
		}
		return true
	})
	return n
}

// isLeaf says whether fieldsV1's node set, an object, has no children:
// read as text ("{}"; a ForEach would delimit its first child first).
func isLeaf(set gjson.Result) bool {
	for _, c := range []byte(set.Raw[1:]) {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c == '}'
		}
	}
	return true
}

// sameValue says whether two JSON values are the same: as text, or, for
// strings, as what they say (the same string may be escaped two ways).
func sameValue(a, b gjson.Result) bool {
	if a.Type == gjson.String && b.Type == gjson.String {
		return a.Str == b.Str
	}
	return a.Raw == b.Raw
}

// member is the value of key in object obj (missing when obj is not an
// object or lacks it). A scan rather than obj.Get: a key may hold any of
// gjson's path characters ("deployment.kubernetes.io/revision").
func member(obj gjson.Result, key string) (v gjson.Result) {
	if !obj.IsObject() {
		return v
	}
	obj.ForEach(func(k, val gjson.Result) bool {
		if k.Str == key {
			v = val
			return false
		}
		return true
	})
	return v
}

// element is the element of list that fieldsV1's name ("k:{KEYS}",
// "v:VALUE", "i:N") stands for (missing when there is none).
func element(list gjson.Result, name string) (v gjson.Result) {
	if !list.IsArray() || len(name) < 2 || name[1] != ':' {
		return v
	}
	arg := name[2:]
	var match func(i int, el gjson.Result) bool
	switch name[0] {
	case 'k':
		keys := gjson.Parse(arg)
		match = func(_ int, el gjson.Result) bool { return hasKeys(el, keys) }
	case 'v':
		value := gjson.Parse(arg)
		match = func(_ int, el gjson.Result) bool { return sameValue(el, value) }
	case 'i':
		at, err := strconv.Atoi(arg)
		if err != nil {
			return v
		}
		match = func(i int, _ gjson.Result) bool { return i == at }
	default:
		return v
	}
	i := 0
	list.ForEach(func(_, el gjson.Result) bool {
		if match(i, el) {
			v = el
			return false
		}
		i++
		return true
	})
	return v
}

// hasKeys says whether el holds each of keys' fields with its value.
func hasKeys(el, keys gjson.Result) bool {
	if !keys.IsObject() {
		return false
	}
	ok := true
	keys.ForEach(func(k, want gjson.Result) bool {
		ok = sameValue(member(el, k.Str), want)
		return ok
	})
	return ok
}
