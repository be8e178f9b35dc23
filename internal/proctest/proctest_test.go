package proctest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestParseStatus: the fields of /proc/PID/status that Usage holds, in
// bytes; the others, and a line that does not read, are left out.
func TestParseStatus(t *testing.T) {
	for _, tt := range []struct {
		status string
		want   Usage
	}{
		{"Name:\tx\nVmHWM:\t    1732 kB\nVmRSS:\t 1700 kB\nRssAnon:\t     112 kB\nRssFile:\t    1620 kB\n", Usage{Peak: 1732 << 10, Anon: 112 << 10, File: 1620 << 10}},
		{"VmHWM:\t12 kB\n", Usage{Peak: 12 << 10}},
		{"VmHWM:\tmany kB\nRssAnon: 3\n", Usage{}},
		{"", Usage{}},
	} {
		if got := parseStatus(strings.NewReader(tt.status)); got != tt.want {
			t.Errorf("parseStatus(%q) = %+v, want %+v", tt.status, got, tt.want)
		}
	}
}

// TestRunChild: the child's output comes back less its usage line, with
// its peak memory where the platform tells it.
func TestRunChild(t *testing.T) {
	u, out := RunChild(t, "TestChild", "PROCTEST_WORD=hello")
	if out != "said hello\n" {
		t.Errorf("the child printed %q", out)
	}
	if runtime.GOOS == "linux" && (u.Peak <= 0 || u.Anon <= 0) {
		t.Errorf("the child's usage %+v: want its peak and anonymous memory", u)
	}
	if u.Elapsed <= 0 {
		t.Errorf("the child took %v", u.Elapsed)
	}
}

// TestChild is TestRunChild's child; it does nothing unless run by it.
func TestChild(t *testing.T) {
	if !IsChild() {
		t.Skip("TestRunChild's child")
	}
	fmt.Println("said " + os.Getenv("PROCTEST_WORD"))
	ReportUsage()
}
