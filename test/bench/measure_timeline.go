//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

// Targets of the timeline rows (issue 49).
const (
	timelineLimit     = 1.0 // seconds to exit, plain text (the first screen's work)
	timelineHTMLLimit = 5.0 // seconds to exit, --html
	timelineRSSLimit  = 150 // MB (10^6 bytes) of peak RSS
)

// timelineResult is `timeline --since 24h` of timelinetest.Cluster3000's
// record: piped (plain text) and, where the binary has the flag, --html.
type timelineResult struct {
	revisions int         // in the record
	plain     []getSample // timeline pods,leases -A --since 24h, piped
	html      []getSample // the same with --html FILE
	htmlBytes []int64     // the HTML file's size, per run
	noHTML    string      // why there are no --html samples ("" when there are)
}

// timeTimelines writes the record (24 h of a 3,000-pod cluster,
// ending now; not counted) into a temporary directory and times
// `timeline pods,leases -A --since 24h --history-db FILE` to its exit,
// piped, and with --html FILE, taking turns. The kinds are resolved by the
// bench's API server, as blame's are.
func (he *historyEnv) timeTimelines(ctx context.Context, r *timelineResult) error {
	dir, err := os.MkdirTemp("", "kubectl-reflect-bench-timeline-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "history.db")
	began := time.Now()
	stats, err := timelinetest.Record(ctx, db, timelinetest.Cluster3000(began.Add(-24*time.Hour)))
	if err != nil {
		return fmt.Errorf("writing the record: %w", err)
	}
	for _, n := range stats {
		r.revisions += n
	}
	he.logf("history: the timeline's record, %v, written in %s", stats, time.Since(began).Round(time.Millisecond))
	plain := []string{"timeline", "pods,leases", "-A", "--since", "24h", "--history-db", db, "--kubeconfig", he.kubeconfig}
	html := append(append([]string{}, plain...), "--html", filepath.Join(dir, "timeline.html"))
	if !hasFlag(ctx, he.tools.reflect, "--html", "timeline", "--help") {
		r.noHTML = "not built"
		html = nil
	}
	for i := -1; i < he.cfg.repeat; i++ { // -1 warms up
		s, err := timeToExit(ctx, he.env, he.tools.reflect, plain)
		if err == nil && s.lines < 100 {
			err = fmt.Errorf("printed %d lines", s.lines)
		}
		if err != nil {
			return fmt.Errorf("%v: %w", plain, err)
		}
		if i >= 0 {
			r.plain = append(r.plain, s)
		}
		if html != nil {
			if err := he.timeHTML(ctx, r, html, i >= 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// timeHTML times one `timeline --html FILE` (args ends with FILE) and
// reads the file's size; keep says whether the sample counts.
func (he *historyEnv) timeHTML(ctx context.Context, r *timelineResult, args []string, keep bool) error {
	file := args[len(args)-1]
	os.Remove(file)
	s, err := timeToExit(ctx, he.env, he.tools.reflect, args)
	if err != nil {
		return fmt.Errorf("%v: %w", args, err)
	}
	fi, err := os.Stat(file)
	if err == nil && fi.Size() == 0 {
		err = fmt.Errorf("%s is empty", file)
	}
	if err != nil {
		return fmt.Errorf("%v: %w", args, err)
	}
	if keep {
		r.html = append(r.html, s)
		r.htmlBytes = append(r.htmlBytes, fi.Size())
	}
	return nil
}

// hasFlag says whether `path args...` (a --help) prints flag.
func hasFlag(ctx context.Context, path, flag string, args ...string) bool {
	out, err := exec.CommandContext(ctx, path, args...).Output()
	return err == nil && strings.Contains(string(out), flag)
}
