//go:build linux

package main

import (
	"bytes"
	"sync"
	"time"
)

// lineTimes is the stdout of a watch that prints a table of all namespaces
// (NAMESPACE NAME ...): it counts lines and, once armed, notes when each
// object name it is told to track first shows in a row. It keeps the names
// and times only, so reading costs the benchmark little.
type lineTimes struct {
	mu      sync.Mutex
	lines   int
	partial []byte // the current, unfinished line
	track   func(name string) bool
	seen    map[string]time.Time // first row of each tracked name since arm
	want    int
	reached chan struct{} // closed once want tracked names were seen
}

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
	if l.track == nil {
		return
	}
	name := rowName(line)
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

// rowName is the NAME of a row of a table of all namespaces: its second
// column; "" for a line with fewer.
func rowName(line []byte) string {
	f := bytes.Fields(line)
	if len(f) < 2 {
		return ""
	}
	return string(f[1])
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
