// Package proctest measures a benchmark's work in a process of its own,
// so that the memory it reports is the work's alone and not the
// benchmark's setup: RunChild runs one test of the test binary again as a
// child process, which does the work and ends with ReportUsage; the
// parent reads back the child's peak resident set size (VmHWM), its
// anonymous and file-backed memory at the end, what else it printed, and
// its time from start to exit.
//
// It exists because three benchmarks of the timeline (the HTML page's,
// pkg/timeline/htmlpage, and the terminal's first screen,
// internal/cmd/timeline) measured so, each its own way. It is for tests:
// pkg/ tests may import it, pkg/ code may not (pkg/imports_test.go). It
// reads /proc/self/status: elsewhere than Linux the memory is reported as
// unknown (0), not measured another way.
package proctest
