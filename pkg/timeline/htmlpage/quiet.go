package htmlpage

import (
	"slices"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// noise are the members history --diff leaves out of objects.
var noise = output.NoisePaths()

// appendQuiet appends the JSON object raw to b without the noise members:
// each cut out with its key and one comma, in one pass and no other
// allocation (sjson's deletes copied the object once per path).
func appendQuiet(b, raw []byte) []byte {
	var cuts [][2]int
	for _, p := range noise {
		r := gjson.GetBytes(raw, p)
		if r.Index <= 0 || !r.Exists() {
			continue
		}
		if lo, hi, ok := memberSpan(raw, r.Index, r.Index+len(r.Raw)); ok {
			cuts = append(cuts, [2]int{lo, hi})
		}
	}
	slices.SortFunc(cuts, func(x, y [2]int) int { return x[0] - y[0] })
	at := 0
	for _, c := range cuts {
		if c[0] < at {
			continue // within one cut already (cannot be: the paths are apart)
		}
		b = append(b, raw[at:c[0]]...)
		at = c[1]
	}
	return append(b, raw[at:]...)
}

// memberSpan is the bytes of the object member whose value is raw[lo:hi]:
// from its key, with the comma before it (or, the first member, the one
// after it).
func memberSpan(raw []byte, lo, hi int) (int, int, bool) {
	i := skipSpaceBack(raw, lo-1)
	if i < 0 || raw[i] != ':' {
		return 0, 0, false
	}
	i = skipSpaceBack(raw, i-1)
	if i < 0 || raw[i] != '"' {
		return 0, 0, false
	}
	for i--; i >= 0 && (raw[i] != '"' || raw[i-1] == '\\'); i-- {
	}
	if i < 0 {
		return 0, 0, false
	}
	before := skipSpaceBack(raw, i-1)
	switch {
	case before >= 0 && raw[before] == ',':
		return before, hi, true
	case before >= 0 && raw[before] == '{':
		after := hi
		for after < len(raw) && isSpace(raw[after]) {
			after++
		}
		if after < len(raw) && raw[after] == ',' {
			return i, after + 1, true
		}
		return i, hi, true // the only member
	}
	return 0, 0, false
}

func skipSpaceBack(raw []byte, i int) int {
	for i >= 0 && isSpace(raw[i]) {
		i--
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
