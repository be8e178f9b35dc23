package mirror

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// The annotations of emberstack's kubernetes-reflector, read and written
// under the same names so that its users switch without editing anything.
const (
	prefix = "reflector.v1.k8s.emberstack.com/"

	// On a source.
	annAllowed           = prefix + "reflection-allowed"
	annAllowedNamespaces = prefix + "reflection-allowed-namespaces"
	annAllowedSelector   = prefix + "reflection-allowed-namespaces-selector"
	annAutoEnabled       = prefix + "reflection-auto-enabled"
	annAutoNamespaces    = prefix + "reflection-auto-namespaces"
	annAutoSelector      = prefix + "reflection-auto-namespaces-selector"

	// On a copy: reflects is what makes an object a mirror (the user writes
	// it on a manual one); the others are written by the mirror on every copy.
	annReflects         = prefix + "reflects"
	annAutoReflects     = prefix + "auto-reflects"
	annReflectedVersion = prefix + "reflected-version"
	annReflectedAt      = prefix + "reflected-at"
)

// properties are what an object's annotations say about mirroring.
type properties struct {
	allowed, autoEnabled bool
	allowedNamespaces    nsMatcher
	autoNamespaces       nsMatcher

	// isMirror: the object carries a valid reflects annotation naming
	// reflects (never itself).
	isMirror         bool
	reflects         store.Key
	autoReflects     bool
	reflectedVersion string
}

// parseProperties reads the annotations of the object at self. Problems
// (an invalid regular expression or label selector) come back as
// warnings; the entry concerned matches nothing (fails closed).
func parseProperties(self store.Key, ann map[string]string) (properties, []string) {
	var p properties
	var warnings []string
	p.allowed = parseBool(ann[annAllowed])
	p.autoEnabled = parseBool(ann[annAutoEnabled])
	p.allowedNamespaces, warnings = newNSMatcher(ann[annAllowedNamespaces], ann[annAllowedSelector], annAllowedNamespaces, annAllowedSelector, warnings)
	p.autoNamespaces, warnings = newNSMatcher(ann[annAutoNamespaces], ann[annAutoSelector], annAutoNamespaces, annAutoSelector, warnings)
	if k, ok := parseReflects(ann[annReflects]); ok && k != self {
		p.isMirror, p.reflects = true, k
	}
	p.autoReflects = parseBool(ann[annAutoReflects])
	p.reflectedVersion = strings.TrimSpace(ann[annReflectedVersion])
	return p, warnings
}

// parseBool reads a boolean annotation as .NET's bool.TryParse does
// (emberstack is written in C#): "true" in any case, blanks around it
// ignored; anything else is false.
func parseBool(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

// formatBool writes a boolean annotation as emberstack does (C#'s
// bool.ToString()).
func formatBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// parseReflects reads "NAMESPACE/NAME".
func parseReflects(v string) (store.Key, bool) {
	ns, name, ok := strings.Cut(strings.TrimSpace(v), "/")
	ns, name = strings.TrimSpace(ns), strings.TrimSpace(name)
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return store.Key{}, false
	}
	return store.Key{Namespace: ns, Name: name}, true
}

// canReflectTo says whether the source p allows a copy in ns.
func (p properties) canReflectTo(ns namespaceInfo) bool {
	return p.allowed && p.allowedNamespaces.matches(ns)
}

// canAutoReflectTo says whether the source p wants an automatic copy in
// ns: reflection allowed there and auto-enabled for it.
func (p properties) canAutoReflectTo(ns namespaceInfo) bool {
	return p.canReflectTo(ns) && p.autoEnabled && p.autoNamespaces.matches(ns)
}

// isAutoSource: the object wants automatic copies somewhere.
func (p properties) isAutoSource() bool { return p.allowed && p.autoEnabled && !p.isMirror }

// namespaceInfo is what matching needs of a namespace.
type namespaceInfo struct {
	name        string
	labels      map[string]string
	terminating bool
}

// nsMatcher is one namespace list annotation and its label-selector
// companion. As emberstack: both empty match every namespace; otherwise a
// namespace matches when its name matches an entry of the list or its
// labels match the selector.
type nsMatcher struct {
	patterns []*regexp.Regexp
	// hasList and hasSelector say whether the annotations were set: a list
	// whose every entry was invalid still matches nothing.
	hasList, hasSelector bool
	selector             labels.Selector // nil when invalid: matches nothing
}

// newNSMatcher parses a comma-separated list of names or regular
// expressions and a label selector; a problem with either is appended to
// warnings, naming the annotation.
func newNSMatcher(list, selector, listAnn, selectorAnn string, warnings []string) (nsMatcher, []string) {
	var m nsMatcher
	for _, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		m.hasList = true
		re, err := regexp.Compile(entry)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: entry %q is not a regular expression this mirror reads: %v", listAnn, entry, err))
			continue
		}
		m.patterns = append(m.patterns, re)
	}
	if strings.TrimSpace(selector) != "" {
		m.hasSelector = true
		sel, err := labels.Parse(selector)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v", selectorAnn, err))
		} else {
			m.selector = sel
		}
	}
	return m, warnings
}

// matches says whether ns matches the list or the selector.
func (m nsMatcher) matches(ns namespaceInfo) bool {
	if !m.hasList && !m.hasSelector {
		return true
	}
	for _, re := range m.patterns {
		if fullMatch(re, ns.name) {
			return true
		}
	}
	return m.selector != nil && m.selector.Matches(labels.Set(ns.labels))
}

// fullMatch is emberstack's test: the first match of re in s (leftmost,
// first alternative preferred, as .NET's Regex.Match and Go's regexp both
// find it) must be the whole of s. So "ns-1" matches "ns-1" but not
// "ns-10", and "a|ab" does not match "ab".
func fullMatch(re *regexp.Regexp, s string) bool {
	loc := re.FindStringIndex(s)
	return loc != nil && loc[0] == 0 && loc[1] == len(s)
}
