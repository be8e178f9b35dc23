package blame

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Step is one step of a Path: a key of a map, or, when List, an index
// of a list.
type Step struct {
	Key   string
	Index int
	List  bool
}

// Path is a field of an object, from its root: spec.template.spec.containers[0].image.
type Path []Step

// String is p as ParsePath reads it back: dotted keys, indexes in
// brackets, a key that holds a dot or a bracket quoted (['app.kubernetes.io/name']).
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.List:
			fmt.Fprintf(&b, "[%d]", s.Index)
		case !plain(s.Key):
			fmt.Fprintf(&b, "['%s']", quoteKey.Replace(s.Key))
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		}
	}
	return b.String()
}

// plain says whether key reads back as itself outside brackets.
func plain(key string) bool {
	if key == "" || key[0] == '$' {
		return false
	}
	for _, c := range []byte(key) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-/:+=~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

var quoteKey = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// ParsePath reads a field path as kubectl's JSONPath names one field
// ({.spec.replicas}, .spec.replicas) or as a dotted path (spec.replicas,
// spec.template.spec.containers[0].image); a key with dots is quoted in
// brackets (metadata.labels['app.kubernetes.io/name']) or its dots
// escaped (metadata.labels.app\.kubernetes\.io/name). Wildcards, filters,
// slices and unions name more than one field: they are refused.
func ParsePath(s string) (Path, error) {
	p, err := parsePath(s)
	if err != nil {
		return nil, fmt.Errorf("invalid field path %q: %w", s, err)
	}
	return p, nil
}

func parsePath(s string) (Path, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		if !strings.HasSuffix(s, "}") || len(s) < 2 {
			return nil, errors.New("a JSONPath template opens with { and closes with }")
		}
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "$"), ".")
	if s == "" {
		return nil, errors.New("empty: want a field such as spec.replicas")
	}
	var p Path
	for i := 0; i < len(s); {
		if s[i] == '[' {
			step, n, err := bracket(s[i:])
			if err != nil {
				return nil, err
			}
			p, i = append(p, step), i+n
		} else {
			key, n, err := plainKey(s[i:])
			if err != nil {
				return nil, err
			}
			p, i = append(p, Step{Key: key}), i+n
		}
		switch {
		case i == len(s):
		case s[i] == '.':
			i++
			if i == len(s) || s[i] == '.' || s[i] == '[' {
				return nil, errors.New("a key is empty (two dots, a dot before a bracket or at the end)")
			}
		case s[i] != '[':
			return nil, fmt.Errorf("%q at offset %d: a . or a [ must follow a bracket", s[i], i)
		}
	}
	return p, nil
}

// plainKey reads a key at the start of s up to a dot or a bracket (a
// character after \ is the key's), and says how many bytes it took.
func plainKey(s string) (string, int, error) {
	var key strings.Builder
	i := 0
	for ; i < len(s) && s[i] != '.' && s[i] != '['; i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return "", 0, errors.New("a \\ at the end")
			}
			i++
			key.WriteByte(s[i])
		case ']', '*', '?', '@', '{', '}', '(', ')', ',':
			return "", 0, fmt.Errorf("%q: a field path names one field (no wildcards, filters, unions or templates)", c)
		default:
			key.WriteByte(c)
		}
	}
	return key.String(), i, nil
}

// bracket reads a step in brackets at the start of s ([0], ['key'],
// ["key"]) and says how many bytes it took.
func bracket(s string) (Step, int, error) {
	end := strings.IndexByte(s, ']')
	if len(s) > 1 && (s[1] == '\'' || s[1] == '"') {
		q := s[1]
		var key strings.Builder
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == '\\' && i+1 < len(s):
				i++
				key.WriteByte(s[i])
			case s[i] == q:
				if i+1 >= len(s) || s[i+1] != ']' {
					return Step{}, 0, errors.New("a quoted key must close its bracket: ['key']")
				}
				return Step{Key: key.String()}, i + 2, nil
			default:
				key.WriteByte(s[i])
			}
		}
		return Step{}, 0, errors.New("a quoted key is not closed")
	}
	if end < 0 {
		return Step{}, 0, errors.New("a [ is not closed")
	}
	inner := s[1:end]
	n, err := strconv.Atoi(inner)
	if err != nil || n < 0 || strings.HasPrefix(inner, "+") {
		return Step{}, 0, fmt.Errorf("[%s]: want a list index ([0]) or a quoted key (['a.b']); wildcards, filters and slices name more than one field", inner)
	}
	return Step{Index: n, List: true}, end + 1, nil
}

// Lookup is the value at p in doc (JSON), and whether it is there.
func (p Path) Lookup(doc []byte) (gjson.Result, bool) {
	v := gjson.ParseBytes(doc)
	for _, s := range p {
		var next gjson.Result
		found := false
		switch {
		case !s.List && v.IsObject():
			v.ForEach(func(k, val gjson.Result) bool {
				if k.Str == s.Key {
					next, found = val, true
					return false
				}
				return true
			})
		case s.List && v.IsArray():
			i := 0
			v.ForEach(func(_, val gjson.Result) bool {
				if i == s.Index {
					next, found = val, true
					return false
				}
				i++
				return true
			})
		}
		if !found {
			return gjson.Result{}, false
		}
		v = next
	}
	return v, true
}
