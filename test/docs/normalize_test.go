package docs

import (
	"regexp"
	"strings"
)

// What changes from run to run, in the order it is replaced: a path may
// hold a hash, a timestamp holds durations' digits.
var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(^|[\s:="'(])(?:/[\w.@-]+){2,}/?`), "${1}/PATH"},
	{regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), "UID"},
	{regexp.MustCompile(`\b[0-9a-f]{10,}\b`), "HEX"},
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b`), "TIME"},
	{regexp.MustCompile(`\b\d\d:\d\d:\d\d(\.\d+)?\b`), "TIME"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h|d)(\d+(\.\d+)?(ms|s|m|h))*\b`), "DUR"},
	{regexp.MustCompile(`\d{3,}`), "NUM"},
	{regexp.MustCompile(`[ \t]+`), " "},
}

// normalize is line with what changes from run to run replaced.
func normalize(line string) string {
	for _, n := range normalizers {
		line = n.re.ReplaceAllString(line, n.with)
	}
	return strings.TrimSpace(line)
}

// ellipsis is the line that stands for any number of lines.
const ellipsis = "..."

// matches reports whether actual is what want shows, normalized, a line
// "..." of want matching any number of lines of actual.
func matches(want, actual []string) bool {
	if len(want) == 0 {
		return len(actual) == 0
	}
	if strings.TrimSpace(want[0]) == ellipsis {
		for i := 0; i <= len(actual); i++ {
			if matches(want[1:], actual[i:]) {
				return true
			}
		}
		return false
	}
	return len(actual) > 0 && normalize(want[0]) == normalize(actual[0]) && matches(want[1:], actual[1:])
}

// lines splits a command's output into lines, without the last newline.
func lines(out string) []string {
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}
