package mirror

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

var src = store.Key{Namespace: "src", Name: "s"}

// obj is an item at ns/name with annotations given as key=value pairs
// (short keys: allowed, allowed-ns, auto, auto-ns, reflects, auto-reflects,
// version).
func obj(ns, name string, pairs ...string) *item {
	short := map[string]string{
		"allowed": annAllowed, "allowed-ns": annAllowedNamespaces, "auto": annAutoEnabled,
		"auto-ns": annAutoNamespaces, "reflects": annReflects, "auto-reflects": annAutoReflects, "version": annReflectedVersion,
	}
	ann := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		ann[short[k]] = v
	}
	key := store.Key{Namespace: ns, Name: name}
	props, _ := parseProperties(key, ann)
	return &item{key: key, uid: "uid-" + ns + "-" + name, rv: "1", props: props, annotations: ann}
}

func nsList(names ...string) []namespaceInfo {
	out := make([]namespaceInfo, len(names))
	for i, n := range names {
		out[i] = ns(n)
	}
	return out
}

func keys[T any](xs []T, key func(T) store.Key) []string {
	var out []string
	for _, x := range xs {
		out = append(out, key(x).String())
	}
	slices.Sort(out)
	return out
}

func targetKey(t target) store.Key { return t.key }
func itemKey(it *item) store.Key   { return it.key }

func TestPlanFor(t *testing.T) {
	auto := func(ns string) *item { return obj(ns, "s", "reflects=src/s", "auto-reflects=True") }
	manual := func(ns, name string) *item { return obj(ns, name, "reflects=src/s") }
	tests := []struct {
		name                           string
		s                              state
		write, auto, remove, conflicts []string
		refused                        []string
	}{
		{
			name: "no source, nothing there",
			s:    state{namespaces: nsList("src", "a")},
		},
		{
			name:  "auto everywhere: a copy in every other namespace",
			s:     state{source: obj("src", "s", "allowed=true", "auto=true"), namespaces: nsList("src", "a", "b")},
			write: []string{"a/s", "b/s"}, auto: []string{"a/s", "b/s"},
		},
		{
			name:  "auto namespaces narrow the copies",
			s:     state{source: obj("src", "s", "allowed=true", "auto=true", "auto-ns=a,c-.*"), namespaces: nsList("src", "a", "b", "c-1")},
			write: []string{"a/s", "c-1/s"}, auto: []string{"a/s", "c-1/s"},
		},
		{
			name:  "allowed namespaces narrow the automatic ones",
			s:     state{source: obj("src", "s", "allowed=true", "allowed-ns=a", "auto=true", "auto-ns=a,b"), namespaces: nsList("src", "a", "b")},
			write: []string{"a/s"}, auto: []string{"a/s"},
		},
		{
			name: "terminating namespaces are left alone",
			s: state{source: obj("src", "s", "allowed=true", "auto=true"),
				namespaces: []namespaceInfo{ns("src"), {name: "a", terminating: true}}, atName: map[string]*item{"a": auto("a")}},
		},
		{
			name: "an existing copy is updated, a stranger is a conflict",
			s: state{source: obj("src", "s", "allowed=true", "auto=true"), namespaces: nsList("src", "a", "b", "c"),
				atName: map[string]*item{"a": auto("a"), "b": obj("b", "s"), "c": obj("c", "s", "reflects=other/s", "auto-reflects=True")}},
			write: []string{"a/s"}, auto: []string{"a/s"}, conflicts: []string{"b/s", "c/s"},
		},
		{
			name: "a manual copy where an automatic one belongs becomes automatic",
			s: state{source: obj("src", "s", "allowed=true", "auto=true"), namespaces: nsList("src", "a"),
				atName: map[string]*item{"a": manual("a", "s")}, manual: []*item{manual("a", "s")}},
			write: []string{"a/s"}, auto: []string{"a/s"},
		},
		{
			name: "source gone: automatic copies removed, manual ones and strangers left",
			s: state{namespaces: nsList("src", "a", "b", "c"),
				atName: map[string]*item{"a": auto("a"), "b": manual("b", "s"), "c": obj("c", "s")}},
			remove: []string{"a/s"},
		},
		{
			name: "source no longer allows: automatic copies removed",
			s: state{source: obj("src", "s", "allowed=false", "auto=true"), namespaces: nsList("src", "a"),
				atName: map[string]*item{"a": auto("a")}, manual: []*item{manual("b", "m")}},
			remove: []string{"a/s"},
		},
		{
			name: "auto turned off: automatic copies removed, manual ones still filled",
			s: state{source: obj("src", "s", "allowed=true"), namespaces: nsList("src", "a", "b"),
				atName: map[string]*item{"a": auto("a")}, manual: []*item{manual("b", "m")}},
			write: []string{"b/m"}, remove: []string{"a/s"},
		},
		{
			name: "namespaces narrowed: the copy outside is removed",
			s: state{source: obj("src", "s", "allowed=true", "auto=true", "auto-ns=a"), namespaces: nsList("src", "a", "b"),
				atName: map[string]*item{"a": auto("a"), "b": auto("b")}},
			write: []string{"a/s"}, auto: []string{"a/s"}, remove: []string{"b/s"},
		},
		{
			name: "manual copies: filled where allowed, refused elsewhere, any name, the source's namespace too",
			s: state{source: obj("src", "s", "allowed=true", "allowed-ns=src,a"), namespaces: nsList("src", "a", "b"),
				manual: []*item{manual("a", "x"), manual("b", "y"), manual("src", "z")}},
			write: []string{"a/x", "src/z"}, refused: []string{"b/y"},
		},
		{
			name: "a manual copy of another source or in a namespace that is gone is not ours",
			s: state{source: obj("src", "s", "allowed=true"), namespaces: nsList("src", "a"),
				manual: []*item{obj("a", "x", "reflects=src/other"), manual("gone", "y")}},
		},
		{
			name: "a source that is itself a mirror is no source",
			s: state{source: obj("src", "s", "allowed=true", "auto=true", "reflects=elsewhere/s"), namespaces: nsList("src", "a", "b"),
				atName: map[string]*item{"a": auto("a")}},
			remove: []string{"a/s"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.s.key = src
			p := planFor(tt.s)
			check := func(what string, got, want []string) {
				t.Helper()
				if !slices.Equal(got, want) {
					t.Errorf("%s = %q, want %q", what, got, want)
				}
			}
			var autos []string
			for _, w := range p.write {
				if w.auto {
					autos = append(autos, w.key.String())
				}
			}
			slices.Sort(autos)
			check("write", keys(p.write, targetKey), tt.write)
			check("auto", autos, tt.auto)
			check("remove", keys(p.remove, itemKey), tt.remove)
			check("conflicts", keys(p.conflicts, itemKey), tt.conflicts)
			check("refused", keys(p.refused, itemKey), tt.refused)
		})
	}
}

func TestUpToDate(t *testing.T) {
	source := obj("src", "s", "allowed=true", "auto=true")
	source.rv = "7"
	source.payload = payload{Type: "kubernetes.io/tls", Text: map[string]string{"a": "1"}, Bytes: map[string][]byte{"b": []byte("2")}}
	copyOf := func(edit func(it *item)) *item {
		it := obj("a", "s", "reflects=src/s", "auto-reflects=True", "version=7")
		it.payload = payload{Type: "kubernetes.io/tls", Text: map[string]string{"a": "1"}, Bytes: map[string][]byte{"b": []byte("2")}}
		if edit != nil {
			edit(it)
		}
		return it
	}
	tests := []struct {
		name string
		t    target
		want bool
	}{
		{"nothing there", target{auto: true}, false},
		{"the same", target{auto: true, existing: copyOf(nil)}, true},
		{"an older version", target{auto: true, existing: copyOf(func(it *item) { it.annotations[annReflectedVersion] = "6" })}, false},
		{"version reset by hand", target{auto: true, existing: copyOf(func(it *item) { it.annotations[annReflectedVersion] = "" })}, false},
		{"auto-reflects differs", target{auto: false, existing: copyOf(nil)}, false},
		{"a value edited", target{auto: true, existing: copyOf(func(it *item) { it.payload.Text = map[string]string{"a": "x"} })}, false},
		{"a key deleted", target{auto: true, existing: copyOf(func(it *item) { it.payload.Bytes = nil })}, false},
		{"a key added by someone else", target{auto: true, existing: copyOf(func(it *item) { it.payload.Text = map[string]string{"a": "1", "z": "9"} })}, false},
		{"another type stays (immutable)", target{auto: true, existing: copyOf(func(it *item) { it.payload.Type = "Opaque" })}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upToDate(source, tt.t); got != tt.want {
				t.Errorf("upToDate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDesiredPayloadType(t *testing.T) {
	source := obj("src", "s")
	source.payload.Type = "kubernetes.io/tls"
	if got := desiredPayload(source, target{}).Type; got != "kubernetes.io/tls" {
		t.Errorf("a new copy has type %q, want the source's", got)
	}
	existing := obj("a", "s")
	existing.payload.Type = "Opaque"
	if got := desiredPayload(source, target{existing: existing}).Type; got != "Opaque" {
		t.Errorf("an existing copy gets type %q, want its own (immutable)", got)
	}
}

func TestExtraKeys(t *testing.T) {
	want := payload{Text: map[string]string{"a": "1"}, Bytes: map[string][]byte{"b": []byte("2")}}
	got := payload{Text: map[string]string{"a": "1", "x": "9"}, Bytes: map[string][]byte{"b": []byte("2"), "y": nil}}
	extra := extraKeys(got, want)
	if len(extra.Text) != 1 || extra.Text["x"] != "9" || len(extra.Bytes) != 1 {
		t.Errorf("extraKeys = %+v, want x and y", extra)
	}
	if extra := extraKeys(want, want); extra.Text != nil || extra.Bytes != nil {
		t.Errorf("extraKeys of the same = %+v", extra)
	}
}
