package history

import "bytes"

// Class is what a Modified revision changed, as its writer classified it
// against the revision before (the revisions table's class column, kept
// so that a timeline reads it without decoding objects), or that the
// revision is a Warning Event.
type Class uint8

// The values are kept in the class column: a new one takes the next
// number, and none is ever renumbered.
const (
	// Unclassified: an Added, Initial or Deleted revision (its Op says
	// it all), or one written before the column existed.
	Unclassified Class = iota
	// SpecChange: metadata.generation moved, or a field other than
	// status, metadata.resourceVersion and metadata.managedFields changed
	// (labels and annotations included).
	SpecChange
	// StatusChange: only status (or resourceVersion and managedFields)
	// changed.
	StatusChange
	// WarningEvent: the object is an Event of type Warning (core/v1's
	// involvedObject or events.k8s.io's regarding), whatever its Op.
	WarningEvent
)

func (c Class) String() string {
	switch c {
	case SpecChange:
		return "spec"
	case StatusChange:
		return "status"
	case WarningEvent:
		return "warning"
	}
	return "unclassified"
}

// Classify is the class of the revision after of an object whose revision
// before it was before (nil: none, Unclassified unless after is a Warning
// Event). It reads the JSON's members as bytes, without decoding them:
// the API server writes an object's fields in one order, so a member
// whose bytes are equal did not change.
func Classify(before, after []byte) Class {
	a := splitMembers(after)
	if isWarningEvent(a) {
		return WarningEvent
	}
	if before == nil || a == nil {
		return Unclassified
	}
	b := splitMembers(before)
	if b == nil {
		return Unclassified
	}
	if !sameExcept(b, a, "status", "metadata") {
		return SpecChange
	}
	bm, am := splitMembers(b.get("metadata")), splitMembers(a.get("metadata"))
	if !bytes.Equal(bm.get("generation"), am.get("generation")) || !sameExcept(bm, am, "resourceVersion", "managedFields") {
		return SpecChange
	}
	return StatusChange
}

// isWarningEvent says whether an object's members are a Warning Event's.
func isWarningEvent(m jsonMembers) bool {
	if !bytes.Equal(m.get("type"), []byte(`"Warning"`)) {
		return false
	}
	return m.get("involvedObject") != nil || m.get("regarding") != nil
}

// sameExcept says whether a and b have the same members, but those named.
func sameExcept(a, b jsonMembers, except ...string) bool {
	skip := func(k []byte) bool {
		for _, e := range except {
			if string(k) == e {
				return true
			}
		}
		return false
	}
	i, j := 0, 0
	for {
		for i < len(a) && skip(a[i].key) {
			i++
		}
		for j < len(b) && skip(b[j].key) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if !bytes.Equal(a[i].key, b[j].key) || !bytes.Equal(a[i].value, b[j].value) {
			return false
		}
		i, j = i+1, j+1
	}
}

// jsonMember is one member of a JSON object: its key (unquoted, escapes
// left as they are) and its value's bytes.
type jsonMember struct{ key, value []byte }

type jsonMembers []jsonMember

// get is the value of key, nil when absent.
func (m jsonMembers) get(key string) []byte {
	for _, e := range m {
		if string(e.key) == key {
			return e.value
		}
	}
	return nil
}

// splitMembers splits a JSON object into its members, in order; nil when doc
// is not an object (or is malformed).
func splitMembers(doc []byte) jsonMembers {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil
	}
	out := make(jsonMembers, 0, 16)
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return out
	}
	for i < len(doc) {
		end := skipString(doc, i)
		if end < 0 {
			return nil
		}
		key := doc[i+1 : end-1]
		i = skipSpace(doc, end)
		if i >= len(doc) || doc[i] != ':' {
			return nil
		}
		start := skipSpace(doc, i+1)
		end = skipValue(doc, start)
		if end < 0 {
			return nil
		}
		out = append(out, jsonMember{key, doc[start:end]})
		i = skipSpace(doc, end)
		switch {
		case i < len(doc) && doc[i] == ',':
			i = skipSpace(doc, i+1)
		case i < len(doc) && doc[i] == '}':
			return out
		default:
			return nil
		}
	}
	return nil
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string at doc[i], -1 when
// there is none.
func skipString(doc []byte, i int) int {
	if i >= len(doc) || doc[i] != '"' {
		return -1
	}
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the value at doc[i], -1 when
// malformed: strings skipped whole, objects and arrays by depth.
func skipValue(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for ; i < len(doc); i++ {
			switch doc[i] {
			case '"':
				end := skipString(doc, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(doc); i++ { // a number, true, false or null
		switch doc[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
