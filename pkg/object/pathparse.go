package object

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParsePath reads a Path as a person types one: dotted keys
// (spec.replicas), list indexes (containers[0]), every element ([*]), a
// quoted key (labels['app.kubernetes.io/name'], labels["a.b"], \' and \\
// escaped inside) or a key's dots escaped (labels.app\.kubernetes\.io/name),
// bare or in kubectl's JSONPath form ({.spec.replicas}, $.spec.replicas,
// .spec.replicas). Anything else is refused, with an error that names the
// text and says where it stops making sense: JSONPath's filters, slices,
// unions, recursive descent and templates name no field of one object.
func ParsePath(text string) (Path, error) {
	steps, err := parseSteps(text)
	if err != nil {
		return Path{}, fmt.Errorf("invalid field path %q: %w", text, err)
	}
	return Path{steps: steps}, nil
}

// MustParsePath is ParsePath of a path known to be good; it panics on a bad one.
func MustParsePath(text string) Path {
	p, err := ParsePath(text)
	if err != nil {
		panic(err)
	}
	return p
}

// parseSteps reads text's steps; its errors do not repeat text.
func parseSteps(text string) ([]Step, error) {
	s, err := unwrap(text)
	if err != nil {
		return nil, err
	}
	if s == "" {
		return nil, errors.New("it names no field: want one such as spec.replicas")
	}
	p := parser{src: s}
	var steps []Step
	for p.pos < len(s) {
		var st Step
		if s[p.pos] == '[' {
			st, err = p.bracket()
		} else {
			st, err = p.key()
		}
		if err == nil {
			err = p.separator()
		}
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// unwrap is text without its spaces around, JSONPath braces and root ($
// or a leading dot).
func unwrap(text string) (string, error) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "{") || strings.HasSuffix(s, "}") {
		if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
			return "", errors.New("a JSONPath template opens with { and closes with }: {.spec.replicas}")
		}
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if rest, ok := strings.CutPrefix(s, "$"); ok {
		if rest != "" && rest[0] != '.' && rest[0] != '[' {
			return "", fmt.Errorf("%q after $: the root is followed by . or [ ($.spec)", rest[0])
		}
		s = rest
	}
	return strings.TrimPrefix(s, "."), nil
}

// parser reads the steps of src (a path unwrapped); pos is the next byte
// to read, and src[:pos] what its errors say they come after.
type parser struct {
	src string
	pos int
}

// after is where an error is: after what was read, or at the start.
func (p *parser) after() string {
	if p.pos == 0 {
		return "at the start"
	}
	return fmt.Sprintf("after %q", p.src[:p.pos])
}

// key reads a key outside brackets, up to a '.' or a '[' (a byte after \
// is the key's).
func (p *parser) key() (Step, error) {
	var key strings.Builder
	for ; p.pos < len(p.src) && p.src[p.pos] != '.' && p.src[p.pos] != '['; p.pos++ {
		c := p.src[p.pos]
		switch {
		case c == '\\':
			if p.pos+1 == len(p.src) {
				return Step{}, errors.New("a \\ ends the path: it escapes the byte after it (a\\.b)")
			}
			p.pos++
			key.WriteByte(p.src[p.pos])
		case c == ']':
			return Step{}, fmt.Errorf("a ] %s closes no [", p.after())
		case strings.IndexByte("*?@{}(),", c) >= 0:
			return Step{}, fmt.Errorf("%q %s: a field path has no filters, slices, unions or templates, and every element is [*]", c, p.after())
		case c <= ' ' || c == '\'' || c == '"' || c == 0x7f:
			return Step{}, fmt.Errorf("%q %s: quote a key that holds it (['a b'])", c, p.after())
		default:
			key.WriteByte(c)
		}
	}
	if key.Len() == 0 {
		return Step{}, fmt.Errorf("an empty key %s", p.after())
	}
	return Step{Key: key.String()}, nil
}

// bracket reads [N], [*], ['key'] or ["key"].
func (p *parser) bracket() (Step, error) {
	rest := p.src[p.pos+1:]
	if rest != "" && (rest[0] == '\'' || rest[0] == '"') {
		return p.quoted()
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return Step{}, fmt.Errorf("a [ %s is not closed", p.after())
	}
	inner := rest[:end]
	where := p.after()
	p.pos += end + 2
	if inner == "*" {
		return Step{Every: true}, nil
	}
	if strings.ContainsAny(inner, "?:,") {
		return Step{}, fmt.Errorf("[%s] %s: JSONPath's filters, slices and unions are not field paths; want an index ([0]) or every element ([*])", inner, where)
	}
	if inner == "" || strings.Trim(inner, "0123456789") != "" {
		return Step{}, fmt.Errorf("[%s] %s: want an index ([0]), every element ([*]) or a quoted key (['a.b'])", inner, where)
	}
	n, err := strconv.Atoi(inner)
	if err != nil {
		return Step{}, fmt.Errorf("[%s] %s: the index is too large", inner, where)
	}
	return Step{Index: n, List: true}, nil
}

// quoted reads ['key'] or ["key"]: \ escapes the byte after it.
func (p *parser) quoted() (Step, error) {
	where := p.after()
	q := p.src[p.pos+1]
	var key strings.Builder
	for i := p.pos + 2; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == '\\' && i+1 < len(p.src):
			i++
			key.WriteByte(p.src[i])
		case c == q:
			if i+1 == len(p.src) || p.src[i+1] != ']' {
				return Step{}, fmt.Errorf("the quoted key %s ends at its quote: [%ckey%c]", where, q, q)
			}
			if key.Len() == 0 {
				return Step{}, fmt.Errorf("an empty key %s", where)
			}
			p.pos = i + 2
			return Step{Key: key.String()}, nil
		default:
			key.WriteByte(c)
		}
	}
	return Step{}, fmt.Errorf("the quote %s is not closed", where)
}

// separator reads what follows a step: the end, a '.' and a key, or a '['.
func (p *parser) separator() error {
	switch {
	case p.pos == len(p.src), p.src[p.pos] == '[':
		return nil
	case p.src[p.pos] != '.':
		return fmt.Errorf("%q %s: a . or a [ follows a ]", p.src[p.pos], p.after())
	}
	p.pos++
	switch {
	case p.pos == len(p.src), p.src[p.pos] == '.':
		return fmt.Errorf("an empty key %s", p.after())
	case p.src[p.pos] == '[':
		return fmt.Errorf("a . before a [ %s: an index follows its key (containers[0])", p.after())
	}
	return nil
}
