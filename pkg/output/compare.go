package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// compareNoise are the fields Compare leaves out unless told: they differ
// between any two clusters, or change with every write, and say nothing
// of what a person compares.
var compareNoise = []object.Path{
	object.MustParsePath("metadata.resourceVersion"),
	object.MustParsePath("metadata.uid"),
	object.MustParsePath("metadata.managedFields"),
	object.MustParsePath("metadata.creationTimestamp"),
	object.MustParsePath("metadata.generation"),
}

var statusPath = object.MustParsePath("status")

// CompareOptions say what Compare leaves out and how it writes.
type CompareOptions struct {
	// Ignore are fields left out beside the noise (diff --ignore).
	Ignore []object.Path
	// IncludeStatus keeps status, which is otherwise left out.
	IncludeStatus bool
	// ByNamespace pairs objects by namespace and name (several
	// namespaces); otherwise by name alone (each side's one namespace,
	// which may differ: two contexts' own namespaces).
	ByNamespace bool
	Color       bool
}

// Side is one of the states Compare compares: Label names it in the
// output ("east", "now", "2026-12-06T17:00:00Z"), Objects are what it
// holds of the kind.
type Side struct {
	Label   string
	Objects []*object.Object
}

// Pair is one object as each side holds it, nil where a side lacks it.
type Pair struct {
	Key     store.Key
	Objects []*object.Object
}

// Pairs pairs the objects of sides (see CompareOptions.ByNamespace), in
// the order of their keys (store.CompareKeys).
func Pairs(sides []Side, byNamespace bool) []Pair {
	index := map[store.Key]int{}
	var pairs []Pair
	for i, s := range sides {
		for _, obj := range s.Objects {
			k := store.Key{Name: obj.Name}
			if byNamespace {
				k.Namespace = obj.Namespace
			}
			at, ok := index[k]
			if !ok {
				at = len(pairs)
				index[k] = at
				pairs = append(pairs, Pair{Key: k, Objects: make([]*object.Object, len(sides))})
			}
			pairs[at].Objects[i] = obj
		}
	}
	slices.SortFunc(pairs, func(a, b Pair) int { return store.CompareKeys(a.Key, b.Key) })
	return pairs
}

// Compare writes what differs between the sides' objects of kind and
// says whether anything does. Objects are paired (Pairs); one that some
// sides lack is a line, "only in east: configmap/x -n web" (or "missing
// in west: ..." when more than one side holds it); each that the first
// side holding it and another hold differently is a unified diff of their
// YAML, noise and opts.Ignore left out, under headers that name each side:
//
//	--- east: configmap/settings -n web (resourceVersion 4211)
//	+++ west: configmap/settings -n web (resourceVersion 877)
//	@@ -1,5 +1,5 @@
//	 apiVersion: v1
//	 data:
//	-  replicas: "1"
//	+  replicas: "3"
func Compare(w io.Writer, kind Kind, sides []Side, opts CompareOptions) (bool, error) {
	bw := bufio.NewWriter(w)
	different := false
	for _, p := range Pairs(sides, opts.ByNamespace) {
		d, err := comparePair(bw, kind, sides, p, opts)
		if err != nil {
			return different, err
		}
		different = different || d
	}
	return different, bw.Flush()
}

// comparePair writes what differs of one object; see Compare.
func comparePair(w *bufio.Writer, kind Kind, sides []Side, p Pair, opts CompareOptions) (bool, error) {
	var held, lacking []string
	var objs []*object.Object
	var labels []string
	for i, obj := range p.Objects {
		if obj == nil {
			lacking = append(lacking, sides[i].Label)
			continue
		}
		held = append(held, sides[i].Label)
		objs, labels = append(objs, obj), append(labels, sides[i].Label)
	}
	name := objectName(kind, objs[0])
	switch {
	case len(held) == 1:
		fmt.Fprintf(w, "only in %s: %s\n", held[0], name)
	case len(lacking) > 0:
		fmt.Fprintf(w, "missing in %s: %s\n", strings.Join(lacking, ", "), name)
	}
	different := len(lacking) > 0
	if len(objs) < 2 {
		return different, nil
	}
	base, err := ComparableYAML(objs[0], opts)
	if err != nil {
		return different, err
	}
	for i := 1; i < len(objs); i++ {
		other, err := ComparableYAML(objs[i], opts)
		if err != nil {
			return different, err
		}
		if other == base {
			continue
		}
		diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: lines(base), B: lines(other), Context: 3,
			FromFile: header(labels[0], kind, objs[0]), ToFile: header(labels[i], kind, objs[i]),
		})
		if err != nil {
			return different, err
		}
		writeColouredDiff(w, diff, opts.Color)
		different = true
	}
	return different, nil
}

// objectName is kind/name, with -n and the namespace of a namespaced one.
func objectName(kind Kind, obj *object.Object) string {
	name := kindPrefix(kind) + obj.Name
	if obj.Namespace != "" {
		name += " -n " + obj.Namespace
	}
	return name
}

// header is a diff's ---/+++ line after the marker: side, object and its
// resourceVersion, as "only in" lines name them.
func header(label string, kind Kind, obj *object.Object) string {
	h := label + ": " + objectName(kind, obj)
	if obj.ResourceVersion != "" {
		h += " (resourceVersion " + obj.ResourceVersion + ")"
	}
	return h
}

// ComparableYAML is obj's YAML as Compare compares it: without the noise
// (and status, unless opts.IncludeStatus) and the fields opts.Ignore
// names.
func ComparableYAML(obj *object.Object, opts CompareOptions) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(obj.JSON()))
	dec.UseNumber() // numbers as written, not as float64s
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("decoding %s: %w", obj.Name, err)
	}
	paths := slices.Concat(compareNoise, opts.Ignore)
	if !opts.IncludeStatus {
		paths = append(paths, statusPath)
	}
	for _, p := range paths {
		doc, _ = p.Delete(doc)
	}
	if doc == nil {
		return "", nil
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("converting %s to YAML: %w", obj.Name, err)
	}
	return string(out), nil
}

// lines are doc's lines for difflib, each ending in "\n" (difflib's
// SplitLines of a text that ends in one adds an empty last line).
func lines(doc string) []string { return difflib.SplitLines(strings.TrimSuffix(doc, "\n")) }
