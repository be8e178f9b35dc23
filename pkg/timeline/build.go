package timeline

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// Cluster is one recorded cluster: its context's name and its history.
type Cluster struct {
	Context string
	// Record is the history; it must be a history.MarkReader (the records
	// history.Open returns are).
	Record history.Record
	// Namespace, when not empty, limits this cluster's namespaced kinds to
	// it in place of Query.Namespace: each context's own namespace, as
	// `get --context a,b` reads each in its own.
	Namespace string
}

// Query says what a timeline shows.
type Query struct {
	// Kinds are the resources drawn, in this order.
	Kinds []Kind
	// Events are the record's Events resources whose Warnings become
	// marks on the lanes of the objects they are about; nil: the first
	// of "events.v1." and "events.v1.events.k8s.io" each source recorded.
	Events []string
	// Namespace limits namespaced kinds to one namespace ("": all).
	Namespace string
	// Selector, when not nil, keeps the objects whose labels (at their
	// latest revision in the span) it matches.
	Selector labels.Selector
	// Since and Until are the span; Until zero means now.
	Since, Until time.Time
}

// ErrNoMarkReader: a store that cannot read marks.
var ErrNoMarkReader = errors.New("the history cannot be read as a timeline")

// Build reads the lanes of q from each source into a Timeline: groups in
// the order of the sources and q.Kinds, then by namespace, lanes by name.
func Build(ctx context.Context, src []Cluster, q Query) (*Timeline, error) {
	if q.Until.IsZero() {
		q.Until = time.Now()
	}
	t := &Timeline{Since: q.Since, Until: q.Until}
	groups := map[groupKey]*Group{}
	err := Stream(ctx, src, q, func(l *Lane) error {
		k := groupKey{l.Context, l.Kind.Resource, l.Namespace}
		g := groups[k]
		if g == nil {
			g = &Group{Context: l.Context, Kind: l.Kind, Namespace: l.Namespace}
			groups[k] = g
			t.Groups = append(t.Groups, g)
		}
		g.Lanes = append(g.Lanes, l)
		t.Marks += len(l.Marks)
		return nil
	})
	if err != nil {
		return nil, err
	}
	order := func(g *Group) (int, int) { // the source's and the kind's positions in the query
		s := slices.IndexFunc(src, func(s Cluster) bool { return s.Context == g.Context })
		k := slices.IndexFunc(q.Kinds, func(k Kind) bool { return k.Resource == g.Kind.Resource })
		return s, k
	}
	slices.SortStableFunc(t.Groups, func(a, b *Group) int {
		as, ak := order(a)
		bs, bk := order(b)
		return cmp.Or(cmp.Compare(as, bs), cmp.Compare(ak, bk), cmp.Compare(a.Namespace, b.Namespace))
	})
	for _, g := range t.Groups {
		slices.SortStableFunc(g.Lanes, func(a, b *Lane) int { return cmp.Compare(a.Name, b.Name) })
	}
	return t, nil
}

type groupKey struct{ context, resource, namespace string }

// Stream gives fn each lane of q as it is read, without keeping it: the
// lanes of each source and kind in order of namespace, then name (the
// order of Build's groups and lanes; objects that only Warnings in the
// span are about come after those of their kind). Marks are read from the record's
// cheap columns only; objects are decoded for q.Selector (one revision
// a lane) and for Warning Events alone.
func Stream(ctx context.Context, src []Cluster, q Query, fn func(*Lane) error) error {
	if q.Until.IsZero() {
		q.Until = time.Now()
	}
	for _, s := range src {
		r, ok := s.Record.(history.MarkReader)
		if !ok {
			return fmt.Errorf("%s: %w", s.Record.Location(), ErrNoMarkReader)
		}
		q := q
		if s.Namespace != "" {
			q.Namespace = s.Namespace
		}
		warnings, err := readWarnings(ctx, r, q)
		if err != nil {
			return err
		}
		for _, k := range q.Kinds {
			if err := streamKind(ctx, s.Context, r, k, q, warnings, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// streamKind gives fn the lanes of kind k in one source.
func streamKind(ctx context.Context, context string, r history.MarkReader, k Kind, q Query, warnings map[ref][]Mark, fn func(*Lane) error) error {
	ns := q.Namespace
	if !k.Namespaced {
		ns = ""
	}
	var lane *Lane
	var last uint64
	flush := func() error {
		if lane == nil {
			return nil
		}
		l := lane
		lane = nil
		key := ref{k.Kind, l.Namespace, l.Name}
		if w := warnings[key]; len(w) > 0 {
			l.Marks = mergeMarks(l.Marks, w)
			delete(warnings, key)
		}
		if ok, err := selected(ctx, r, k, q.Selector, l.Namespace, l.Name, last); err != nil || !ok {
			return err
		}
		return fn(l)
	}
	err := r.EachMark(ctx, k.Resource, ns, q.Since, q.Until, func(m *history.Mark) error {
		if lane != nil && (lane.Namespace != m.Namespace || lane.Name != m.Name) {
			if err := flush(); err != nil {
				return err
			}
		}
		if lane == nil {
			lane = &Lane{Context: context, Kind: k, Namespace: m.Namespace, Name: m.Name}
		}
		last = m.RV
		lane.Marks = append(lane.Marks, Mark{Time: m.Time, Since: m.Since, RV: m.RV, Type: typeOf(m)})
		return nil
	})
	if errors.Is(err, history.ErrNotRecorded) {
		return nil // a kind one of several contexts does not record
	}
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = streamWarnedOnly(ctx, context, r, k, q, ns, warnings, fn)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", k.Name, err)
	}
	return nil
}

// streamWarnedOnly gives fn the lanes of k's objects that have Warning
// Events in the span but no revision of their own in it (warnedOnly),
// those q's selector selects.
func streamWarnedOnly(ctx context.Context, context string, r history.MarkReader, k Kind, q Query, ns string, warnings map[ref][]Mark, fn func(*Lane) error) error {
	return warnedOnly(k, context, ns, warnings, func(l *Lane) error {
		ok, err := selected(ctx, r, k, q.Selector, l.Namespace, l.Name, math.MaxInt64)
		switch {
		case errors.Is(err, history.ErrNotRecorded):
			return nil // never recorded: its labels are not known
		case err != nil:
			return err
		case !ok:
			return nil
		}
		return fn(l)
	})
}

// warnedOnly gives fn a lane for each object of kind k (in namespace ns,
// "": any) that Warning Events are about but no revision in the span is
// of, sorted by namespace and name.
func warnedOnly(k Kind, context, ns string, warnings map[ref][]Mark, fn func(*Lane) error) error {
	var keys []ref
	for key := range warnings {
		if key.kind == k.Kind && (ns == "" || key.namespace == ns) {
			keys = append(keys, key)
		}
	}
	slices.SortFunc(keys, func(a, b ref) int { return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name)) })
	for _, key := range keys {
		l := &Lane{Context: context, Kind: k, Namespace: key.namespace, Name: key.name, Marks: warnings[key]}
		delete(warnings, key)
		if err := fn(l); err != nil {
			return err
		}
	}
	return nil
}

// typeOf is the mark of a revision.
func typeOf(m *history.Mark) MarkType {
	switch m.Op {
	case history.Added:
		return Create
	case history.Initial:
		return Initial
	case history.Deleted:
		return Delete
	}
	switch m.Class {
	case history.SpecChange:
		return Spec
	case history.StatusChange:
		return Status
	}
	return Change
}

// selected says whether an object's labels at rv match sel (nil: all).
func selected(ctx context.Context, r history.MarkReader, k Kind, sel labels.Selector, ns, name string, rv uint64) (bool, error) {
	if sel == nil || sel.Empty() {
		return true, nil
	}
	rev, err := r.RevisionAt(ctx, k.Resource, ns, name, rv)
	if err != nil {
		return false, err
	}
	var doc struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(rev.Object, &doc); err != nil {
		return false, fmt.Errorf("%s/%s at resourceVersion %d: %w", ns, name, rv, err)
	}
	return sel.Matches(labels.Set(doc.Metadata.Labels)), nil
}

// mergeMarks merges two lists of marks, each oldest first.
func mergeMarks(a, b []Mark) []Mark {
	out := make([]Mark, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.SortStableFunc(out, func(x, y Mark) int { return x.Time.Compare(y.Time) })
	return out
}

// ref names an object an Event is about.
type ref struct{ kind, namespace, name string }

// readWarnings reads the Warning Events of q's span, by the object each
// is about.
func readWarnings(ctx context.Context, r history.MarkReader, q Query) (map[ref][]Mark, error) {
	out := map[ref][]Mark{}
	res, err := eventsOf(ctx, r, q.Events)
	if err != nil || res == "" {
		return out, err
	}
	ns := q.Namespace
	if slices.ContainsFunc(q.Kinds, func(k Kind) bool { return !k.Namespaced }) {
		ns = "" // the Events about a cluster-scoped object are in a namespace of their own ("default")
	}
	err = r.EachWarning(ctx, res, ns, q.Since, q.Until, func(rev *history.Revision) error {
		if rev.Op == history.Deleted {
			return nil // an Event expired: not news about its object
		}
		var e eventDoc
		if json.Unmarshal(rev.Object, &e) != nil || e.Type != "Warning" {
			return nil
		}
		about := cmp.Or(e.InvolvedObject, e.Regarding)
		if about == nil {
			return nil
		}
		k := ref{about.Kind, about.Namespace, about.Name}
		out[k] = append(out[k], Mark{Time: rev.Time, Since: rev.Since, RV: rev.RV, Type: Warning,
			Event: &Event{Name: e.Metadata.Name, Reason: e.Reason, Message: cmp.Or(e.Message, e.Note)}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading Warning Events: %w", err)
	}
	return out, nil
}

// eventsOf is the Events resource whose Warnings to read: the first of
// names (or of the defaults) the record holds, "" when none.
func eventsOf(ctx context.Context, r history.MarkReader, names []string) (string, error) {
	if names == nil {
		names = []string{"events.v1.", "events.v1.events.k8s.io"}
	}
	recorded, err := r.Resources(ctx)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if slices.Contains(recorded, n) {
			return n, nil
		}
	}
	return "", nil
}

type eventDoc struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Type           string     `json:"type"`
	Reason         string     `json:"reason"`
	Message        string     `json:"message"`
	Note           string     `json:"note"`
	InvolvedObject *objectRef `json:"involvedObject"`
	Regarding      *objectRef `json:"regarding"`
}

type objectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}
