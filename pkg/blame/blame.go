package blame

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// Line is a line of an object's YAML and the change that set its value.
type Line struct {
	Text   string
	Change Change
}

// Blame is an object's YAML at its last revision of revs (the object's
// revisions, oldest first; a deletion's is its state before it), each line
// with the revision that last set its value, as git blame tells it: a
// scalar's line the revision that last changed the scalar, a key whose
// value is a map or a list the one that made it, a line that continues a
// value (a block of text) its value's. The YAML is kubectl's (get -o
// yaml) without managedFields.
//
// Only the object's life that ends there counts: its revisions since it
// was last created (Added, or Initial: found by the recorder, the values
// then set before recording).
func Blame(revs []history.Revision) ([]Line, error) {
	last := lastState(revs)
	if last < 0 {
		return nil, errors.New("no revision holds the object")
	}
	first := lifeStart(revs, last)
	changes := make([]Change, 0, last-first+1)
	var (
		tree *node
		prev gjson.Result
	)
	for i := first; i <= last; i++ {
		r := &revs[i]
		if r.Op == history.Deleted {
			continue
		}
		cur := gjson.ParseBytes(r.Object)
		var before []byte
		if tree != nil {
			before = []byte(prev.Raw)
		}
		changes = append(changes, changeOf(r, before, tree == nil))
		rev := len(changes) - 1
		if tree == nil {
			tree = build(cur, rev, atRoot)
		} else {
			tree = update(tree, prev, cur, rev, atRoot)
		}
		prev = cur
	}
	return annotate(revs[last].Object, tree, changes)
}

// lastState is the index of the last revision of revs that holds the
// object as it was (a deletion holds its state before it), -1 when none.
func lastState(revs []history.Revision) int {
	for i := len(revs) - 1; i >= 0; i-- {
		if revs[i].Op != history.Deleted {
			return i
		}
	}
	return -1
}

// lifeStart is the index of the revision that began the life of the
// object that revs[last] is: the last Added or Initial at or before it,
// or a revision whose uid is not the one before's (recreated while
// nothing recorded).
func lifeStart(revs []history.Revision, last int) int {
	uid := gjson.GetBytes(revs[last].Object, "metadata.uid").Str
	for i := last; i > 0; i-- {
		if revs[i].Op.Appeared() || revs[i-1].Op == history.Deleted {
			return i
		}
		if gjson.GetBytes(revs[i-1].Object, "metadata.uid").Str != uid {
			return i
		}
	}
	return 0
}

// annotate prints doc as YAML, each line with the change its value's node
// of tree says.
func annotate(doc []byte, tree *node, changes []Change) ([]Line, error) {
	pruned, err := sjson.DeleteBytes(doc, "metadata.managedFields")
	if err != nil {
		return nil, fmt.Errorf("reading the object: %w", err)
	}
	text, err := sigsyaml.JSONToYAML(pruned)
	if err != nil {
		return nil, fmt.Errorf("converting the object to YAML: %w", err)
	}
	var y yaml.Node
	if err := yaml.Unmarshal(text, &y); err != nil {
		return nil, fmt.Errorf("reading the object's YAML: %w", err)
	}
	texts := bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n"))
	origins := make([]int, len(texts))
	for i := range origins {
		origins[i] = -1
	}
	if len(y.Content) == 1 {
		mark(y.Content[0], tree, origins)
	}
	lines := make([]Line, len(texts))
	at := tree.origin
	for i, t := range texts {
		if origins[i] >= 0 {
			at = origins[i]
		}
		lines[i] = Line{Text: string(t), Change: changes[at]}
	}
	return lines, nil
}

// mark sets, in origins (by line, from 0), the origin of each value of y
// (YAML) from n, its node: a key's line, a list item's; the deepest
// value that starts on a line has it ("- name: web" is the name's).
func mark(y *yaml.Node, n *node, origins []int) {
	set := func(line, origin int) {
		if line >= 1 && line <= len(origins) {
			origins[line-1] = origin
		}
	}
	switch y.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			kid, ok := n.keys[k.Value]
			if !ok {
				continue
			}
			set(k.Line, kid.origin)
			mark(v, kid, origins)
		}
	case yaml.SequenceNode:
		for i, v := range y.Content {
			if i >= len(n.items) {
				break
			}
			set(v.Line, n.items[i].origin)
			mark(v, n.items[i], origins)
		}
	}
}
