package object

import (
	"fmt"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

const (
	managedFieldsPath = "metadata.managedFields"
	lastAppliedPath   = `metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`
)

// prune drops the fields p names from doc, in place.
func prune(doc []byte, p Prune) ([]byte, error) {
	var err error
	if p.ManagedFields {
		if doc, err = removeMember(doc, managedFieldsPath); err != nil {
			return nil, fmt.Errorf("pruning managedFields: %w", err)
		}
	}
	if p.LastApplied {
		if doc, err = removeMember(doc, lastAppliedPath); err != nil {
			return nil, fmt.Errorf("pruning last-applied-configuration: %w", err)
		}
	}
	return doc, nil
}

// removeMember removes the object member at path from doc, in place. It
// finds the member's key and separating comma around the value gjson
// locates, and falls back to sjson (which copies) for anything unusual.
func removeMember(doc []byte, path string) ([]byte, error) {
	v := gjson.Get(unsafe.String(unsafe.SliceData(doc), len(doc)), path)
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
