package object

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

const (
	managedFieldsPath = "metadata.managedFields"
	lastAppliedPath   = `metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`
)

// The end of each pruned path's last key as any JSON text spells it but
// with a \u escape (letters, digits, '-' and '.' have no other): a document
// with neither holds no such member, and is not walked to find it (most
// objects have no last-applied annotation; a daemon's, a store's and a
// table row's objects no managedFields).
const (
	managedFieldsMark = `managedFields"`
	lastAppliedMark   = `last-applied-configuration"`
	unicodeEscape     = `\u`
)

// prune drops the fields p names from doc, in place; markers are
// p.markers().
func prune(doc []byte, p Prune, markers []string) ([]byte, error) {
	if len(markers) > 0 && !mentionsAny(doc, markers) {
		doc = metadataOnly(doc)
		p.ManagedFields, p.LastApplied = true, true
	}
	var err error
	if p.ManagedFields {
		if doc, err = removeMember(doc, managedFieldsPath, managedFieldsMark); err != nil {
			return nil, fmt.Errorf("pruning managedFields: %w", err)
		}
	}
	if p.LastApplied {
		if doc, err = removeMember(doc, lastAppliedPath, lastAppliedMark); err != nil {
			return nil, fmt.Errorf("pruning last-applied-configuration: %w", err)
		}
	}
	return doc, nil
}

// markers are the strings of p.MetadataOnlyUnless; nil for none.
func (p Prune) markers() []string {
	var out []string
	for m := range strings.SplitSeq(p.MetadataOnlyUnless, "\n") {
		if m != "" {
			out = append(out, m)
		}
	}
	return out
}

// mentionsAny says whether doc contains one of markers.
func mentionsAny(doc []byte, markers []string) bool {
	s := unsafe.String(unsafe.SliceData(doc), len(doc))
	for _, m := range markers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// metadataOnly rewrites doc, in place, to its apiVersion, kind and
// metadata members. It builds them after doc's end (gjson's values point
// into doc) and moves them to its start.
func metadataOnly(doc []byte) []byte {
	s := unsafe.String(unsafe.SliceData(doc), len(doc))
	n := len(doc)
	doc = append(doc, '{')
	for _, k := range [...]string{"apiVersion", "kind", "metadata"} {
		v := gjson.Get(s, k)
		if !v.Exists() {
			continue
		}
		if len(doc) > n+1 {
			doc = append(doc, ',')
		}
		doc = append(append(append(append(doc, '"'), k...), '"', ':'), v.Raw...)
	}
	doc = append(doc, '}')
	return doc[:copy(doc, doc[n:])]
}

// removeMember removes the object member at path from doc, in place. It
// finds the member's key and separating comma around the value gjson
// locates, and falls back to sjson (which copies) for anything unusual.
// A doc without mark, the end of the member's key (or a \u escape, which
// may spell it otherwise), holds no such member and is left as it is.
func removeMember(doc []byte, path, mark string) ([]byte, error) {
	s := unsafe.String(unsafe.SliceData(doc), len(doc))
	if !strings.Contains(s, mark) && !strings.Contains(s, unicodeEscape) {
		return doc, nil
	}
	v := gjson.Get(s, path)
	if !v.Exists() {
		return doc, nil
	}
	start, end, ok := memberSpan(doc, v.Index, v.Index+len(v.Raw))
	if v.Index <= 0 || !ok {
		return sjson.DeleteBytes(doc, path)
	}
	n := copy(doc[start:], doc[end:])
	return doc[:start+n], nil
}

// memberSpan widens the value doc[from:to] to the member that holds it:
// its key, and the comma before it (or after it, for a first member).
func memberSpan(doc []byte, from, to int) (start, end int, ok bool) {
	i := skipSpaceBack(doc, from-1)
	if i < 0 || doc[i] != ':' {
		return 0, 0, false
	}
	i = skipSpaceBack(doc, i-1)
	if i < 1 || doc[i] != '"' {
		return 0, 0, false
	}
	i-- // the key's last byte; keys of pruned paths hold no quote or escape
	for i >= 0 && doc[i] != '"' {
		if doc[i] == '\\' {
			return 0, 0, false
		}
		i--
	}
	if i < 1 {
		return 0, 0, false
	}
	key := i
	i = skipSpaceBack(doc, key-1)
	switch {
	case i >= 0 && doc[i] == ',':
		return i, to, true
	case i >= 0 && doc[i] == '{':
		j := skipSpace(doc, to)
		if j < len(doc) && doc[j] == ',' {
			return key, skipSpace(doc, j+1), true
		}
		return key, j, true // the only member
	}
	return 0, 0, false
}

func skipSpaceBack(doc []byte, i int) int {
	for i >= 0 && isSpace(doc[i]) {
		i--
	}
	return i
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && isSpace(doc[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }
