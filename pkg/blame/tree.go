package blame

import (
	"github.com/tidwall/gjson"
)

// node is a value of an object and the revision that set it (origin: an
// index of the revisions blamed). A scalar's origin is the revision that
// last changed it; a map's or a list's the revision that made it, and
// its members are nodes of their own. A list of maps that each have a
// name of their own (containers, env, ports, volumes...) keeps its items
// by name, as a strategic merge patch does: an item inserted before
// another does not make that one new.
type node struct {
	origin int
	keys   map[string]*node
	items  []*node
}

// level says where a map is: an object's root, its metadata (whose
// managedFields are left out: who owns what is what blame tells, not a
// value it blames) or anywhere else.
type level uint8

const (
	inside level = iota
	atRoot
	atMetadata
)

// of is the level of the value at key k of a map at l.
func (l level) of(k string) level {
	if l == atRoot && k == "metadata" {
		return atMetadata
	}
	return inside
}

// skips says whether a map at l leaves key k out.
func (l level) skips(k string) bool { return l == atMetadata && k == "managedFields" }

// build is the node of v, a value at l, every part of it set by revision
// rev.
func build(v gjson.Result, rev int, l level) *node {
	n := &node{origin: rev}
	switch {
	case v.IsObject():
		n.keys = map[string]*node{}
		v.ForEach(func(k, val gjson.Result) bool {
			if !l.skips(k.Str) {
				n.keys[k.Str] = build(val, rev, l.of(k.Str))
			}
			return true
		})
	case v.IsArray():
		v.ForEach(func(_, val gjson.Result) bool {
			n.items = append(n.items, build(val, rev, inside))
			return true
		})
	}
	return n
}

// update is n, the node of prev (a value at l), made the node of cur,
// its value at revision rev: what did not change keeps its origin, a
// value whose type changed is new.
func update(n *node, prev, cur gjson.Result, rev int, l level) *node {
	switch {
	case prev.Raw == cur.Raw:
		return n
	case prev.IsObject() && cur.IsObject():
		return updateMap(n, prev, cur, rev, l)
	case prev.IsArray() && cur.IsArray():
		return updateList(n, prev, cur, rev)
	}
	return build(cur, rev, l)
}

// updateMap is update of two maps: key by key.
func updateMap(n *node, prev, cur gjson.Result, rev int, l level) *node {
	before := map[string]gjson.Result{}
	prev.ForEach(func(k, v gjson.Result) bool {
		before[k.Str] = v
		return true
	})
	keys := make(map[string]*node, len(n.keys))
	cur.ForEach(func(k, v gjson.Result) bool {
		switch old, ok := n.keys[k.Str]; {
		case l.skips(k.Str):
		case ok:
			keys[k.Str] = update(old, before[k.Str], v, rev, l.of(k.Str))
		default:
			keys[k.Str] = build(v, rev, l.of(k.Str))
		}
		return true
	})
	n.keys = keys
	return n
}

// updateList is update of two lists: item by item, by name when both
// are lists of maps with names of their own, else by index.
func updateList(n *node, prev, cur gjson.Result, rev int) *node {
	prevItems, curItems := prev.Array(), cur.Array()
	prevNames, byName := names(prevItems)
	curNames, ok := names(curItems)
	byName = byName && ok
	at := make(map[string]int, len(prevNames))
	for i, name := range prevNames {
		at[name] = i
	}
	items := make([]*node, len(curItems))
	for i, v := range curItems {
		j, found := i, i < len(prevItems)
		if byName {
			j, found = at[curNames[i]]
		}
		if found && j < len(n.items) {
			items[i] = update(n.items[j], prevItems[j], v, rev, inside)
		} else {
			items[i] = build(v, rev, inside)
		}
	}
	n.items = items
	return n
}

// names are the names of a list's items when each is a map with a
// string "name" of its own (no two alike).
func names(items []gjson.Result) ([]string, bool) {
	if len(items) == 0 {
		return nil, false
	}
	out := make([]string, len(items))
	seen := make(map[string]bool, len(items))
	for i, v := range items {
		if !v.IsObject() {
			return nil, false
		}
		name := v.Get("name")
		if name.Type != gjson.String || seen[name.Str] {
			return nil, false
		}
		seen[name.Str] = true
		out[i] = name.Str
	}
	return out, true
}
