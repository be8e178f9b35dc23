package mirror

import (
	"bytes"
	"maps"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// state is what one reconcile of a source key knows, read from the stores.
type state struct {
	// key is the source's; source is the object there, nil when there is
	// none. An object that is itself a mirror is no source: its properties
	// are ignored as a source's.
	key    store.Key
	source *item
	// namespaces are every namespace of the cluster.
	namespaces []namespaceInfo
	// atName holds, by namespace, the object named key.Name in each
	// namespace other than key.Namespace, where there is one: the places
	// automatic copies live.
	atName map[string]*item
	// manual are the objects anywhere whose reflects annotation names key
	// (the manual copies; they may include objects of atName). Gathered
	// only when the source allows reflection at all.
	manual []*item
}

// target is a copy to write: auto says which kind of copy it is; existing
// is the object there now, nil for a copy to create.
type target struct {
	key      store.Key
	auto     bool
	existing *item
}

// plan is what a reconcile of a source does.
type plan struct {
	// write are the copies to create or bring up to date (see upToDate:
	// one that already is one is not written).
	write []target
	// remove are automatic copies that must go: the source is gone, no
	// longer allows them, or their namespace no longer matches.
	remove []*item
	// conflicts are objects that stand where an automatic copy should be
	// and are not mirrors of the source: left alone, reported.
	conflicts []*item
	// refused are manual copies that the source does not allow in their
	// namespace: left as they are (emberstack does the same), reported.
	refused []*item
}

// sourceProperties are the properties of s's source as a source: the zero
// value (allows nothing) when there is none or it is itself a mirror.
func (s state) sourceProperties() properties {
	if s.source == nil || s.source.props.isMirror {
		return properties{}
	}
	return s.source.props
}

// planFor decides, from s alone, which copies of s.key to write, which to
// remove and which objects to report. It is the mirror's whole policy:
//
//   - an automatic copy belongs in every namespace, other than the
//     source's, that is not terminating, where the source allows
//     reflection and wants automatic copies (canAutoReflectTo); it is
//     created, or updated when the object there reflects the source
//     (a manual copy there becomes automatic, as with emberstack);
//   - an object there that does not reflect the source is a conflict:
//     never written;
//   - an automatic copy anywhere else is removed, and so is every one when
//     the source is gone or no longer allows it;
//   - a manual copy is updated where the source allows reflection
//     (canReflectTo), else refused and left as it is; when the source is
//     gone it is left as it is (as emberstack does);
//   - terminating namespaces are left alone: what is there goes with them.
func planFor(s state) plan {
	var p plan
	sp := s.sourceProperties()
	done := map[store.Key]bool{}
	for _, ns := range s.namespaces {
		if ns.name == s.key.Namespace || ns.terminating {
			continue
		}
		obj := s.atName[ns.name]
		want := s.source != nil && sp.canAutoReflectTo(ns)
		ours := obj != nil && obj.props.isMirror && obj.props.reflects == s.key
		switch {
		case want && obj == nil:
			p.write = append(p.write, target{key: store.Key{Namespace: ns.name, Name: s.key.Name}, auto: true})
		case want && ours:
			p.write = append(p.write, target{key: obj.key, auto: true, existing: obj})
		case want:
			p.conflicts = append(p.conflicts, obj)
		case ours && obj.props.autoReflects:
			p.remove = append(p.remove, obj)
		default:
			continue // nothing of ours, or a manual copy: see below
		}
		done[store.Key{Namespace: ns.name, Name: s.key.Name}] = true
	}
	if s.source == nil || !sp.allowed {
		return p
	}
	byName := map[string]namespaceInfo{}
	for _, ns := range s.namespaces {
		byName[ns.name] = ns
	}
	for _, m := range s.manual {
		if done[m.key] || m.key == s.key || !m.props.isMirror || m.props.reflects != s.key {
			continue
		}
		ns, ok := byName[m.key.Namespace]
		switch {
		case !ok || ns.terminating:
			continue
		case sp.canReflectTo(ns):
			p.write = append(p.write, target{key: m.key, auto: false, existing: m})
		default:
			p.refused = append(p.refused, m)
		}
	}
	return p
}

// desiredAnnotations are the annotations a copy of source gets, but for
// reflected-at (written with each write, not compared).
func desiredAnnotations(source *item, auto bool) map[string]string {
	return map[string]string{
		annReflects:         source.key.Namespace + "/" + source.key.Name,
		annAutoReflects:     formatBool(auto),
		annReflectedVersion: source.rv,
	}
}

// desiredPayload is what the copy t of source carries: the source's data;
// a Secret's type is the source's for a new copy and stays what it is for
// an existing one (the field is immutable).
func desiredPayload(source *item, t target) payload {
	p := source.payload
	if t.existing != nil && t.existing.payload.Type != "" {
		p.Type = t.existing.payload.Type
	}
	return p
}

// upToDate says whether the copy t already is what writing it would make
// it: it names the source, says auto-reflects as it should, has reflected
// the source's current version, and holds the source's data exactly (as
// emberstack, which replaces a copy's data whole).
func upToDate(source *item, t target) bool {
	e := t.existing
	if e == nil {
		return false
	}
	for k, v := range desiredAnnotations(source, t.auto) {
		if e.annotations[k] != v {
			return false
		}
	}
	want := desiredPayload(source, t)
	return e.payload.Type == want.Type &&
		maps.Equal(want.Text, e.payload.Text) &&
		maps.EqualFunc(want.Bytes, e.payload.Bytes, bytes.Equal)
}

// extraKeys are the keys of got that want has not: after an apply, the
// keys someone other than the mirror wrote on the copy, which the apply
// leaves.
func extraKeys(got, want payload) payload {
	var extra payload
	for k, v := range got.Text {
		if _, ok := want.Text[k]; !ok {
			if extra.Text == nil {
				extra.Text = map[string]string{}
			}
			extra.Text[k] = v
		}
	}
	for k, v := range got.Bytes {
		if _, ok := want.Bytes[k]; !ok {
			if extra.Bytes == nil {
				extra.Bytes = map[string][]byte{}
			}
			extra.Bytes[k] = v
		}
	}
	return extra
}
