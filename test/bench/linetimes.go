//go:build linux

package main

import (
	"bytes"
	"sync"
	"time"
)

// lineTimes is the stdout of a watch that prints a table: it counts lines
// and, once armed, notes when each object name it is told to track first
// shows in a row, in the column its header (the first line with a NAME
// column) names NAME. It keeps the names
// and times only, so reading costs the benchmark little.
type lineTimes struct {
	mu      sync.Mutex
	lines   int
	last    string // the last line, for error messages
	nameCol int    // the NAME column; -1 until the header was read
	partial []byte // the current, unfinished line
	track   func(name string) bool
	seen    map[string]time.Time // first row of each tracked name since arm
	want    int
	reached chan struct{} // closed once want tracked names were seen
}

func newLineTimes() *lineTimes { return &lineTimes{nameCol: -1} }

// Write splits p into lines; a row's time is that of the Write that ends it.
func (l *lineTimes) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.partial = append(l.partial, p...)
			return n, nil
		}
		line := p[:i]
		if len(l.partial) > 0 {
			line = append(l.partial, line...)
		}
		l.row(line, now)
		l.partial, p = l.partial[:0], p[i+1:]
	}
}

// row counts one line and notes the name in it if it is tracked.
func (l *lineTimes) row(line []byte, now time.Time) {
	l.lines++
	l.last = string(line)
	if l.nameCol < 0 {
		l.nameCol = nameColumn(line)
		return
	}
	if l.track == nil {
		return
	}
	name := rowField(line, l.nameCol)
	if !l.track(name) {
		return
	}
	if _, ok := l.seen[name]; ok {
		return
	}
	l.seen[name] = now
	if len(l.seen) == l.want {
		close(l.reached)
	}
}

// nameColumn is the index of the NAME column of a header line, -1 if it
// has none.
func nameColumn(header []byte) int {
	for i, f := range bytes.Fields(header) {
		if string(f) == "NAME" {
			return i
		}
	}
	return -1
}

// rowField is the i-th column of a row; "" for a row with fewer.
func rowField(line []byte, i int) string {
	f := bytes.Fields(line)
	if i >= len(f) {
		return ""
	}
	return string(f[i])
}

// arm forgets the names seen so far and starts noting the rows of the
// names track accepts; the channel is closed once want of them were seen.
func (l *lineTimes) arm(track func(name string) bool, want int) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.track, l.seen, l.want = track, map[string]time.Time{}, want
	l.reached = make(chan struct{})
	if want <= 0 {
		close(l.reached)
	}
	return l.reached
}

// count is the number of lines so far.
func (l *lineTimes) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lines
}

// lastLine is the last line so far.
func (l *lineTimes) lastLine() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// times returns when each tracked name was first seen since arm.
func (l *lineTimes) times() map[string]time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]time.Time, len(l.seen))
	for k, v := range l.seen {
		out[k] = v
	}
	return out
}
