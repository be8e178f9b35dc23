package docs

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// A page's output is compared as printed, but for runs of spaces (a
// table's alignment follows its widest cell) and for the values a
// `<!-- doc-test: vary V... -->` comment before the block names: each V
// shown stands for any value of its kind, and nothing else does.

// kind is what a varying value is, told by how the page shows it.
type kind struct {
	name  string
	shown *regexp.Regexp // the whole of a value of this kind
	any   string         // what it stands for, a regexp
	// same: a value shown twice in a block stands for one value (a
	// resourceVersion, a port, a path); times and ages tick between lines.
	same bool
}

var kinds = []kind{
	{"UID", regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`), `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, true},
	{"time", regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`), `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z`, false},
	{"clock", regexp.MustCompile(`^\d\d:\d\d:\d\d(\.\d+)?$`), `\d\d:\d\d:\d\d(?:\.\d+)?`, false},
	{"duration", regexp.MustCompile(`^(\d+(\.\d+)?(ns|µs|us|ms|s|m|h|d))+$`), `(?:\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h|d))+`, false},
	// a size as serve status prints it (41.3Ki); below 1Ki it is a number of bytes.
	{"size", regexp.MustCompile(`^\d+(\.\d+)?(Ki|Mi|Gi|Ti)$`), `(?:\d+\.\d+(?:Ki|Mi|Gi|Ti)|\d+(?:Ki|Mi|Gi|Ti)?)`, false},
	{"number", regexp.MustCompile(`^\d+$`), `\d+`, true},
	{"hash", regexp.MustCompile(`^[0-9a-f]{8,}$`), `[0-9a-f]+`, true},
	{"path", regexp.MustCompile(`^(/[\w.@-]+)+$`), `(?:/[\w.@-]+)+`, true},
}

// kindOf is the kind of a value a page shows as varying.
func kindOf(v string) (kind, error) {
	for _, k := range kinds {
		if k.shown.MatchString(v) {
			return k, nil
		}
	}
	return kind{}, fmt.Errorf("%q is no number, size, time, duration, UID, hash or path: it cannot vary", v)
}

// varying are the values a block shows that change from run to run, and
// what each was bound to by the lines matched so far (a value whose kind
// is the same everywhere it is shown).
type varying struct {
	values []string // longest first: 1234 is not read in 12345
	bound  map[string]string
}

func newVarying(values []string) (*varying, error) {
	for _, v := range values {
		if _, err := kindOf(v); err != nil {
			return nil, err
		}
	}
	v := &varying{values: slices.Clone(values), bound: map[string]string{}}
	slices.SortFunc(v.values, func(a, b string) int { return len(b) - len(a) })
	return v, nil
}

// String says what the values shown stood for in the lines matched so
// far, for a failure's message.
func (v *varying) String() string {
	if len(v.bound) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n(in the lines before, of the values marked to vary:")
	for _, val := range slices.Sorted(maps.Keys(v.bound)) {
		fmt.Fprintf(&b, " %s was %s", val, v.bound[val])
	}
	return b.String() + ")"
}

func (v *varying) clone() *varying {
	return &varying{values: v.values, bound: maps.Clone(v.bound)}
}

// fold is a line with its runs of spaces one space, trimmed.
func fold(line string) string {
	return strings.Join(strings.Fields(line), " ")
}

// occurrences are the places [start, end) of line where a varying value
// is shown, as a word of its own (1234 in "(resourceVersion 1234)", not
// in 12345 or 1.1234).
func (v *varying) occurrences(line string) [][3]int {
	var at [][3]int
	for i := 0; i < len(line); {
		found := false
		for n, val := range v.values {
			if strings.HasPrefix(line[i:], val) && boundary(line, i, i+len(val)) {
				at = append(at, [3]int{i, i + len(val), n})
				i += len(val)
				found = true
				break
			}
		}
		if !found {
			i++
		}
	}
	return at
}

func boundary(line string, start, end int) bool {
	word := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return (start == 0 || !word(line[start-1]) && line[start-1] != '.') && (end == len(line) || !word(line[end]))
}

// matchLine reports whether actual is what want shows, binding the
// varying values it shows that stand for one value.
func (v *varying) matchLine(want, actual string) bool {
	want, actual = fold(want), fold(actual)
	at := v.occurrences(want)
	if len(at) == 0 {
		return want == actual
	}
	var re strings.Builder
	re.WriteString("^")
	last := 0
	for _, o := range at {
		k, _ := kindOf(v.values[o[2]])
		re.WriteString(regexp.QuoteMeta(want[last:o[0]]) + "(" + k.any + ")")
		last = o[1]
	}
	re.WriteString(regexp.QuoteMeta(want[last:]) + "$")
	m := regexp.MustCompile(re.String()).FindStringSubmatch(actual)
	if m == nil {
		return false
	}
	bound := map[string]string{}
	for i, o := range at {
		val := v.values[o[2]]
		if k, _ := kindOf(val); !k.same {
			continue
		}
		b, ok := v.bound[val]
		if !ok {
			b, ok = bound[val]
		}
		if ok && b != m[i+1] {
			return false
		}
		bound[val] = m[i+1]
	}
	maps.Copy(v.bound, bound)
	return true
}

// ellipsis is the line that stands for any number of lines, in a block
// whose `<!-- doc-test: ellipsis -->` says so.
const ellipsis = "..."

// matches reports whether actual is what want shows: line by line, the
// varying values as above, a line "..." matching any number of lines of
// actual where elide. It returns the values bound by the match.
func matches(want, actual []string, v *varying, elide bool) (*varying, bool) {
	if len(want) == 0 {
		return v, len(actual) == 0
	}
	if elide && strings.TrimSpace(want[0]) == ellipsis {
		for i := 0; i <= len(actual); i++ {
			if got, ok := matches(want[1:], actual[i:], v.clone(), elide); ok {
				return got, true
			}
		}
		return v, false
	}
	if len(actual) == 0 {
		return v, false
	}
	next := v.clone()
	if !next.matchLine(want[0], actual[0]) {
		return v, false
	}
	return matches(want[1:], actual[1:], next, elide)
}

// lines splits a command's output into lines, without the last newline.
func lines(out string) []string {
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}
