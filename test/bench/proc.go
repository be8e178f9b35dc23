//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// procs starts the measured commands and kills whichever are still running
// when the benchmark ends, on error and on SIGINT too.
type procs struct {
	env []string // added to the benchmark's environment

	mu   sync.Mutex
	live map[*child]struct{}
}

func newProcs(env []string) *procs {
	return &procs{env: env, live: map[*child]struct{}{}}
}

// child is one running command. Its stdout goes to the writer given to start
// (through a pipe exec copies from), its stderr to a bounded buffer for error
// messages. A goroutine waits for it, so it is reaped as soon as it exits.
type child struct {
	name   string
	cmd    *exec.Cmd
	stderr *tailBuffer
	done   chan struct{} // closed once the command has exited and was reaped
	err    error         // Wait's error, set before done is closed
}

// start runs path with args in its own process group; ctx ending kills it.
func (p *procs) start(ctx context.Context, stdout io.Writer, path string, args ...string) (*child, error) {
	return p.startWith(ctx, nil, stdout, path, args...)
}

// startWith is start with env added to the environment of this command.
func (p *procs) startWith(ctx context.Context, env []string, stdout io.Writer, path string, args ...string) (*child, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(append(os.Environ(), p.env...), env...)
	cmd.Stdout = stdout
	c := &child{name: commandName(path, args), cmd: cmd, stderr: &tailBuffer{limit: 4096}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return c.signal(syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // do not hang on a pipe a stray grandchild holds
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.name, err)
	}
	p.mu.Lock()
	p.live[c] = struct{}{}
	p.mu.Unlock()
	go func() {
		c.err = cmd.Wait()
		p.mu.Lock()
		delete(p.live, c)
		p.mu.Unlock()
		close(c.done)
	}()
	return c, nil
}

// killAll kills every child still running and waits for it.
func (p *procs) killAll() {
	p.mu.Lock()
	live := make([]*child, 0, len(p.live))
	for c := range p.live {
		live = append(live, c)
	}
	p.mu.Unlock()
	for _, c := range live {
		c.kill()
	}
}

func commandName(path string, args []string) string {
	name := path[strings.LastIndexByte(path, '/')+1:]
	if len(args) > 0 {
		name += " " + args[0]
	}
	return name
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// signal sends sig to the child's process group.
func (c *child) signal(sig syscall.Signal) error {
	err := syscall.Kill(-c.pid(), sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

// kill sends SIGKILL and waits until the child is reaped.
func (c *child) kill() {
	_ = c.signal(syscall.SIGKILL)
	<-c.done
}

// stop sends SIGTERM and waits up to grace for the child to exit, then
// kills it. It reports whether the child exited on SIGTERM.
func (c *child) stop(grace time.Duration) bool {
	_ = c.signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return true
	case <-time.After(grace):
		c.kill()
		return false
	}
}

// wait waits for the child to exit by itself, for at most limit; it returns
// an error, with the end of its stderr, if it failed or took too long.
func (c *child) wait(ctx context.Context, limit time.Duration) error {
	select {
	case <-c.done:
	case <-ctx.Done():
		c.kill()
		return ctx.Err()
	case <-time.After(limit):
		c.kill()
		return fmt.Errorf("%s: still running after %s", c.name, limit)
	}
	if c.err != nil {
		return c.failure(c.err)
	}
	return nil
}

// failure wraps err with the child's name and the end of its stderr.
func (c *child) failure(err error) error {
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		return fmt.Errorf("%s: %w; stderr: %s", c.name, err, s)
	}
	return fmt.Errorf("%s: %w", c.name, err)
}

// cpuTime is the user+system CPU time of an exited child.
func (c *child) cpuTime() time.Duration {
	return c.cmd.ProcessState.UserTime() + c.cmd.ProcessState.SystemTime()
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	b     []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.limit; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// samplePeak reads c's peak resident set every 20 ms until it exits; the
// returned function waits for that and returns the peak in bytes. (rusage's
// maxrss would start at the benchmark's own peak.)
func (c *child) samplePeak() func() int64 {
	var peak int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := readMemory(c.pid()); err == nil { // errors: it has just exited
				peak = max(peak, m.peak())
			}
			select {
			case <-c.done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		<-sampled
		return peak
	}
}
