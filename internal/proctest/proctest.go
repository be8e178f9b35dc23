package proctest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv marks the child process RunChild starts.
const childEnv = "KUBECTL_REFLECT_PROCTEST_CHILD"

// linePrefix starts the line ReportUsage prints, which RunChild takes
// out of the child's output.
const linePrefix = "proctest-usage "

// Usage is a child process's memory, in bytes, and time; a memory of 0 is
// not known (not Linux).
type Usage struct {
	// Peak is the most resident memory it held (VmHWM). A child's rusage
	// from wait4 would not do: it carries the forking parent's peak over
	// the exec.
	Peak int64
	// Anon and File are its resident anonymous memory and pages of files
	// it maps (RssAnon, RssFile; a SQLite history read through mmap is
	// File) when it reported them.
	Anon, File int64
	// Elapsed is from its start to its exit.
	Elapsed time.Duration
}

// IsChild says whether this process is a child that RunChild started: a
// child test does its work only then.
func IsChild() bool { return os.Getenv(childEnv) != "" }

// RunChild runs test (a Test function of this test binary) in a child
// process, with env (NAME=value) added to this one's, and returns its
// usage and its stdout less the line of ReportUsage and the testing
// package's PASS. The child failing fails tb.
func RunChild(tb testing.TB, test string, env ...string) (Usage, string) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	began := time.Now()
	out, err := cmd.Output()
	u := Usage{Elapsed: time.Since(began)}
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		tb.Fatalf("the child %s: %v\n%s%s", test, err, out, stderr)
	}
	var rest strings.Builder
	for line := range strings.Lines(string(out)) {
		fields, ok := strings.CutPrefix(strings.TrimSpace(line), linePrefix)
		if !ok {
			if line != "PASS\n" {
				rest.WriteString(line)
			}
			continue
		}
		if _, err := fmt.Sscanf(fields, "%d %d %d", &u.Peak, &u.Anon, &u.File); err != nil {
			tb.Fatalf("the child %s printed %q: %v", test, line, err)
		}
	}
	return u, rest.String()
}

// ReportUsage prints this process's memory for the RunChild that started
// it: a child test's last act.
func ReportUsage() {
	u := current()
	fmt.Printf("%s%d %d %d\n", linePrefix, u.Peak, u.Anon, u.File)
}

// current is this process's memory, as /proc/self/status says it (all 0
// where there is none).
func current() Usage {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return Usage{}
	}
	defer f.Close()
	return parseStatus(f)
}

// parseStatus reads VmHWM, RssAnon and RssFile of a /proc/PID/status.
func parseStatus(r io.Reader) Usage {
	var u Usage
	fields := map[string]*int64{"VmHWM:": &u.Peak, "RssAnon:": &u.Anon, "RssFile:": &u.File}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text()) // VmHWM:  1732 kB
		if len(f) == 3 && f[2] == "kB" && fields[f[0]] != nil {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			*fields[f[0]] = kb * 1024
		}
	}
	return u
}
