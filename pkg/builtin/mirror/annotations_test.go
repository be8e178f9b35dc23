package mirror

import (
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

func ns(name string, labels ...string) namespaceInfo {
	l := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return namespaceInfo{name: name, labels: l}
}

func TestNamespaceMatching(t *testing.T) {
	tests := []struct {
		name, list, selector string
		ns                   namespaceInfo
		want                 bool
		warnings             int
	}{
		{name: "no list, no selector: every namespace", ns: ns("anything"), want: true},
		{name: "blank list: every namespace", list: " , ,", ns: ns("anything"), want: true},
		{name: "a name", list: "ns-1", ns: ns("ns-1"), want: true},
		{name: "a name is anchored at the end", list: "ns-1", ns: ns("ns-10"), want: false},
		{name: "a name is anchored at the start", list: "ns-1", ns: ns("my-ns-1"), want: false},
		{name: "one of a list, blanks trimmed", list: "a, b ,c", ns: ns("b"), want: true},
		{name: "none of a list", list: "a,b,c", ns: ns("d"), want: false},
		{name: "a regular expression", list: "namespace-[0-9]*", ns: ns("namespace-42"), want: true},
		{name: "a regular expression, not the whole name", list: "namespace-[0-9]*", ns: ns("namespace-42x"), want: false},
		{name: "a regular expression matching inside only", list: "space", ns: ns("namespace"), want: false},
		{name: "dot matches any character", list: "team.", ns: ns("team-"), want: true},
		{name: "the first match must be the whole name (as .NET)", list: "a|ab", ns: ns("ab"), want: false},
		{name: "explicit anchors", list: "^prod-.*$", ns: ns("prod-eu"), want: true},
		{name: "case sensitive", list: "Prod", ns: ns("prod"), want: false},
		{name: "an invalid entry matches nothing, the others still do", list: "(,b", ns: ns("b"), want: true, warnings: 1},
		{name: "only invalid entries: nothing", list: "(", ns: ns("("), want: false, warnings: 1},
		{name: "a selector", selector: "team=a", ns: ns("x", "team", "a"), want: true},
		{name: "a selector not matching", selector: "team=a", ns: ns("x", "team", "b"), want: false},
		{name: "a set-based selector", selector: "env in (dev,qa),!legacy", ns: ns("x", "env", "qa"), want: true},
		{name: "list or selector: the list", list: "x", selector: "team=a", ns: ns("x"), want: true},
		{name: "list or selector: the selector", list: "y", selector: "team=a", ns: ns("x", "team", "a"), want: true},
		{name: "list or selector: neither", list: "y", selector: "team=a", ns: ns("x"), want: false},
		{name: "an invalid selector matches nothing", selector: "team in (", ns: ns("x", "team", "a"), want: false, warnings: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, warnings := newNSMatcher(tt.list, tt.selector, "list", "selector", nil)
			if got := m.matches(tt.ns); got != tt.want {
				t.Errorf("list %q selector %q matches %s = %v, want %v", tt.list, tt.selector, tt.ns.name, got, tt.want)
			}
			if len(warnings) != tt.warnings {
				t.Errorf("warnings %q, want %d", warnings, tt.warnings)
			}
		})
	}
}

func TestParseProperties(t *testing.T) {
	self := store.Key{Namespace: "src", Name: "s"}
	tests := []struct {
		name string
		ann  map[string]string
		want func(p properties) bool
	}{
		{"nothing", nil, func(p properties) bool { return !p.allowed && !p.autoEnabled && !p.isMirror }},
		{"allowed", map[string]string{annAllowed: "true"}, func(p properties) bool { return p.allowed && !p.isAutoSource() }},
		{"allowed in any case, blanks around", map[string]string{annAllowed: " True "}, func(p properties) bool { return p.allowed }},
		{"not allowed", map[string]string{annAllowed: "yes"}, func(p properties) bool { return !p.allowed }},
		{"auto without allowed is no auto source", map[string]string{annAutoEnabled: "true"}, func(p properties) bool { return p.autoEnabled && !p.isAutoSource() }},
		{"auto source", map[string]string{annAllowed: "true", annAutoEnabled: "TRUE"}, func(p properties) bool { return p.isAutoSource() }},
		{"a mirror", map[string]string{annReflects: "a/b"}, func(p properties) bool {
			return p.isMirror && p.reflects == store.Key{Namespace: "a", Name: "b"}
		}},
		{"a mirror with blanks", map[string]string{annReflects: " a / b "}, func(p properties) bool {
			return p.isMirror && p.reflects == store.Key{Namespace: "a", Name: "b"}
		}},
		{"reflects without a namespace", map[string]string{annReflects: "b"}, func(p properties) bool { return !p.isMirror }},
		{"reflects with an empty part", map[string]string{annReflects: "a/"}, func(p properties) bool { return !p.isMirror }},
		{"reflects with too many parts", map[string]string{annReflects: "a/b/c"}, func(p properties) bool { return !p.isMirror }},
		{"reflects itself", map[string]string{annReflects: "src/s"}, func(p properties) bool { return !p.isMirror }},
		{"a mirror is no auto source", map[string]string{annReflects: "a/b", annAllowed: "true", annAutoEnabled: "true"}, func(p properties) bool {
			return p.isMirror && !p.isAutoSource()
		}},
		{"auto-reflects as emberstack writes it", map[string]string{annReflects: "a/b", annAutoReflects: "True"}, func(p properties) bool { return p.autoReflects }},
		{"reflected version", map[string]string{annReflectedVersion: " 42 "}, func(p properties) bool { return p.reflectedVersion == "42" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := parseProperties(self, tt.ann)
			if !tt.want(p) {
				t.Errorf("parseProperties(%v) = %+v", tt.ann, p)
			}
		})
	}
}

func TestAutoReflectTo(t *testing.T) {
	tests := []struct {
		name        string
		ann         map[string]string
		ns          namespaceInfo
		allow, auto bool
	}{
		{"not allowed", map[string]string{annAutoEnabled: "true"}, ns("a"), false, false},
		{"allowed everywhere, no auto", map[string]string{annAllowed: "true"}, ns("a"), true, false},
		{"auto everywhere", map[string]string{annAllowed: "true", annAutoEnabled: "true"}, ns("a"), true, true},
		{"auto namespaces narrow", map[string]string{annAllowed: "true", annAutoEnabled: "true", annAutoNamespaces: "b"}, ns("a"), true, false},
		{"auto namespace must be allowed too", map[string]string{annAllowed: "true", annAllowedNamespaces: "b", annAutoEnabled: "true", annAutoNamespaces: "a,b"}, ns("a"), false, false},
		{"both lists match", map[string]string{annAllowed: "true", annAllowedNamespaces: "team-.*", annAutoEnabled: "true", annAutoNamespaces: "team-a"}, ns("team-a"), true, true},
		{"auto by namespace labels", map[string]string{annAllowed: "true", annAutoEnabled: "true", annAutoSelector: "mirror=yes"}, ns("x", "mirror", "yes"), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := parseProperties(store.Key{Namespace: "src", Name: "s"}, tt.ann)
			if got := p.canReflectTo(tt.ns); got != tt.allow {
				t.Errorf("canReflectTo(%s) = %v, want %v", tt.ns.name, got, tt.allow)
			}
			if got := p.canAutoReflectTo(tt.ns); got != tt.auto {
				t.Errorf("canAutoReflectTo(%s) = %v, want %v", tt.ns.name, got, tt.auto)
			}
		})
	}
}
