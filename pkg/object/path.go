package object

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Path names fields of an object, as a person types one on a command
// line: dotted keys with list indexes, spec.template.spec.containers[0].image,
// or kubectl's JSONPath form of the same, {.spec.replicas}. A key that
// holds dots is quoted, metadata.labels['app.kubernetes.io/name'], or its
// dots escaped, metadata.labels.app\.kubernetes\.io/name; [*] is every
// element of a list (or value of a map).
type Path struct {
	text  string
	steps []step
}

// step is one move down a document: into a map's key, a list's index, or
// every element (every).
type step struct {
	key   string
	index int // -1 for a key
	every bool
}

// ParsePath reads a Path; its error says where the text stops making sense.
func ParsePath(text string) (Path, error) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "$"), ".")
	p := Path{text: text}
	for s != "" {
		st, rest, err := nextStep(s)
		if err != nil {
			return Path{}, fmt.Errorf("invalid path %q: %w", text, err)
		}
		p.steps = append(p.steps, st)
		s = rest
		if strings.HasPrefix(s, ".") {
			if s = s[1:]; s == "" || s[0] == '.' || s[0] == '[' {
				return Path{}, fmt.Errorf("invalid path %q: a key is empty", text)
			}
		}
	}
	if len(p.steps) == 0 {
		return Path{}, fmt.Errorf("invalid path %q: it names no field", text)
	}
	return p, nil
}

// MustParsePath is ParsePath of a path known to be good; it panics on a bad one.
func MustParsePath(text string) Path {
	p, err := ParsePath(text)
	if err != nil {
		panic(err)
	}
	return p
}

// nextStep reads the step s starts with: a bracket or a key up to the next
// '.' or '['.
func nextStep(s string) (step, string, error) {
	if s[0] == '[' {
		return bracket(s)
	}
	var key strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return step{}, "", errors.New("it ends with a backslash")
			}
			i++
			key.WriteByte(s[i])
		case '.', '[':
			return step{key: key.String(), index: -1}, s[i:], nil
		case ']':
			return step{}, "", errors.New("a ']' closes no '['")
		default:
			key.WriteByte(c)
		}
	}
	return step{key: key.String(), index: -1}, "", nil
}

// bracket reads [N], [*], ['key'] or ["key"] at the start of s.
func bracket(s string) (step, string, error) {
	if len(s) > 1 && (s[1] == '\'' || s[1] == '"') {
		q := s[1]
		end := strings.IndexByte(s[2:], q)
		if end < 0 || !strings.HasPrefix(s[2+end+1:], "]") {
			return step{}, "", fmt.Errorf("the quote of %s is not closed by %c]", s, q)
		}
		key := s[2 : 2+end]
		if key == "" {
			return step{}, "", errors.New("a key is empty")
		}
		return step{key: key, index: -1}, s[2+end+2:], nil
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return step{}, "", fmt.Errorf("%s: '[' is not closed", s)
	}
	inner := s[1:end]
	if inner == "*" {
		return step{index: -1, every: true}, s[end+1:], nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 {
		return step{}, "", fmt.Errorf("[%s]: want an index (0, 1, ...), * or a quoted key", inner)
	}
	return step{index: n}, s[end+1:], nil
}

// String is the path as given.
func (p Path) String() string { return p.text }

// Delete removes the fields p names from doc, a JSON document decoded
// into maps and slices (encoding/json's), in place; a map or list that
// this leaves empty goes too (a label ignored on both sides of a diff
// must not leave "labels: {}" on one). It returns doc, or nil when doc
// itself went, and says whether anything was removed.
func (p Path) Delete(doc any) (any, bool) {
	if len(p.steps) == 0 {
		return doc, false
	}
	return deleteSteps(doc, p.steps)
}

// deleteSteps removes steps' fields from v; see Path.Delete.
func deleteSteps(v any, steps []step) (any, bool) {
	st, last := steps[0], len(steps) == 1
	removed := false
	switch c := v.(type) {
	case map[string]any:
		for _, k := range st.keys(c) {
			if last {
				delete(c, k)
				removed = true
				continue
			}
			child, gone := deleteSteps(c[k], steps[1:])
			if child == nil && gone {
				delete(c, k)
			} else {
				c[k] = child // a list may have shrunk
			}
			removed = removed || gone
		}
		if removed && len(c) == 0 {
			return nil, true
		}
	case []any:
		keep := c[:0]
		for i, e := range c {
			if !st.every && i != st.index {
				keep = append(keep, e)
				continue
			}
			if last {
				removed = true
				continue
			}
			child, gone := deleteSteps(e, steps[1:])
			removed = removed || gone
			if child != nil || !gone {
				keep = append(keep, child)
			}
		}
		clear(c[len(keep):])
		if removed && len(keep) == 0 {
			return nil, true
		}
		return keep, removed
	}
	return v, removed
}

// keys are the keys of m that st names: its key, if m has it, or every
// one.
func (st step) keys(m map[string]any) []string {
	if st.every {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		return keys
	}
	if _, ok := m[st.key]; st.index < 0 && ok {
		return []string{st.key}
	}
	return nil
}
