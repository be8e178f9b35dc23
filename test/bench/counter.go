//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"
)

// framing says how a command's output is split into records (events).
type framing int

const (
	// ndjson: one record per line (kubectl-reflect -o json, -o name;
	// kubectl -o name).
	ndjson framing = iota
	// jsonValues: one record per top-level JSON object, printed compact on
	// one line or indented over several: a record ends with a line that
	// starts at column 0 and ends with "}" (kubectl -w -o json prints
	// compact events, kubectl get -o json an indented List).
	jsonValues
)

// counter is the stdout of a measured command: it counts bytes and records
// as they arrive, and notes when the record count reaches a target. It keeps
// nothing else, so reading costs the benchmark little.
type counter struct {
	framing framing

	mu      sync.Mutex
	bytes   int64
	records int
	lineLen int  // bytes of the current, unfinished line
	first   byte // of the current line
	last    byte // of the current line so far
	waiters []waiter
}

type waiter struct {
	n       int
	reached chan time.Time // receives when the n-th record arrived
}

func newCounter(f framing) *counter { return &counter{framing: f} }

func (c *counter) Write(p []byte) (int, error) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bytes += int64(len(p))
	switch c.framing {
	case ndjson:
		c.records += bytes.Count(p, []byte{'\n'})
	case jsonValues:
		c.countJSONValues(p)
	}
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if c.records >= w.n {
			w.reached <- now
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
	return len(p), nil
}

func (c *counter) countJSONValues(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		line := p
		if i >= 0 {
			line = p[:i]
		}
		if len(line) > 0 {
			if c.lineLen == 0 {
				c.first = line[0]
			}
			c.last = line[len(line)-1]
			c.lineLen += len(line)
		}
		if i < 0 {
			return
		}
		if c.lineLen > 0 && c.first != ' ' && c.first != '\t' && c.last == '}' {
			c.records++
		}
		c.lineLen, p = 0, p[i+1:]
	}
}

// counts returns the records and bytes so far.
func (c *counter) counts() (records int, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.records, c.bytes
}

// expect registers interest in the n-th record, before it can arrive, so
// that its arrival time is known however late the caller waits for it.
func (c *counter) expect(n int) *expectation {
	x := &expectation{c: c, n: n, reached: make(chan time.Time, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.records >= n {
		x.reached <- time.Now() // already there: the best we know
		return x
	}
	c.waiters = append(c.waiters, waiter{n: n, reached: x.reached})
	return x
}

// expectation is a record a counter is expected to receive.
type expectation struct {
	c       *counter
	n       int
	reached chan time.Time
}

// wait returns when the n-th record arrived. It gives up when ctx ends,
// after limit, or when exited is closed first (the command ended early).
func (x *expectation) wait(ctx context.Context, limit time.Duration, exited <-chan struct{}) (time.Time, error) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case t := <-x.reached:
		return t, nil
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-timer.C:
		got, _ := x.c.counts()
		return time.Time{}, fmt.Errorf("%d of %d records after %s", got, x.n, limit)
	case <-exited:
		select { // exec copies all output before the command counts as exited
		case t := <-x.reached:
			return t, nil
		default:
		}
		got, _ := x.c.counts()
		return time.Time{}, fmt.Errorf("exited after %d of %d records", got, x.n)
	}
}
