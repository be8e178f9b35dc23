package testkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Patience bounds every wait for something that should happen; it guards
// against hangs and is never a performance expectation.
const Patience = 60 * time.Second

// lineBuffer is how many unread lines a Proc's channels hold; a line that
// finds them full is only in the stream's SyncBuffer.
const lineBuffer = 100000

// Proc is a process a test runs: its stdout and stderr line by line, and
// the whole of each.
type Proc struct {
	T   *testing.T
	Cmd *exec.Cmd
	// Lines are stdout's lines and ErrLines stderr's, in order; both are
	// closed once the process has exited (Err is set by then).
	Lines, ErrLines chan string
	// Stdout and Stderr are all the process wrote to each so far.
	Stdout, Stderr *SyncBuffer
	done           chan struct{}
	err            error
}

// StartProc starts cmd and reads its output. The process is killed when
// the test ends (continued first, should the test have stopped it); its
// stderr is logged if the test failed.
func StartProc(t *testing.T, cmd *exec.Cmd) *Proc {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Proc{
		T: t, Cmd: cmd, Lines: make(chan string, lineBuffer), ErrLines: make(chan string, lineBuffer),
		Stdout: &SyncBuffer{}, Stderr: &SyncBuffer{}, done: make(chan struct{}),
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %v: %v", cmd.Args, err)
	}
	var streams sync.WaitGroup
	streams.Go(func() { readLines(out, p.Lines, p.Stdout) })
	streams.Go(func() { readLines(errOut, p.ErrLines, p.Stderr) })
	go func() {
		streams.Wait() // Wait closes the pipes: read them to the end first
		p.err = cmd.Wait()
		close(p.Lines)
		close(p.ErrLines)
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", cmd.Args, p.Stderr.String())
		}
	})
	return p
}

func readLines(r io.Reader, lines chan<- string, all *SyncBuffer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		all.Write([]byte(sc.Text() + "\n"))
		select {
		case lines <- sc.Text():
		default: // nobody reads this stream: all has it
		}
	}
}

// Done is closed once the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is how the process exited (exec.Cmd.Wait's error), once Done is
// closed.
func (p *Proc) Err() error { return p.err }

// Next returns the next line of stdout, failing the test if none comes.
func (p *Proc) Next() string {
	p.T.Helper()
	select {
	case l, ok := <-p.Lines:
		if !ok {
			p.T.Fatalf("output ended (exit: %v); stderr:\n%s", p.err, p.Stderr.String())
		}
		return l
	case <-time.After(Patience):
		p.T.Fatalf("no output line within %s; stderr:\n%s", Patience, p.Stderr.String())
	}
	return ""
}

// Quiet asserts that no line comes on stdout for d: nothing was printed
// that should not have been.
func (p *Proc) Quiet(d time.Duration) {
	p.T.Helper()
	select {
	case l, ok := <-p.Lines:
		if ok {
			p.T.Errorf("unexpected output: %s", l)
		}
	case <-time.After(d):
	}
}

// UntilLine calls act(0), act(1), ... every half second until a line is
// printed on stdout, and returns it: it makes changes until a watch that
// has just started (and prints nothing at first) shows one.
func (p *Proc) UntilLine(act func(i int)) string {
	p.T.Helper()
	deadline := time.After(Patience)
	for i := 0; ; i++ {
		act(i)
		select {
		case l, ok := <-p.Lines:
			if !ok {
				p.T.Fatalf("output ended (exit: %v); stderr:\n%s", p.err, p.Stderr.String())
			}
			return l
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			p.T.Fatalf("no output line within %s; stderr:\n%s", Patience, p.Stderr.String())
		}
	}
}

// LinesUntilQuiet reads stdout's lines until none comes for d.
func (p *Proc) LinesUntilQuiet(d time.Duration) []string {
	var lines []string
	for {
		select {
		case l, ok := <-p.Lines:
			if !ok {
				return lines
			}
			lines = append(lines, l)
		case <-time.After(d):
			return lines
		}
	}
}

// WaitOutLine reads stdout until a line matches re and returns it.
func (p *Proc) WaitOutLine(re string) string {
	p.T.Helper()
	return p.waitLine(p.Lines, "stdout", regexp.MustCompile(re))
}

// WaitErrLine reads stderr until a line matches re and returns it.
func (p *Proc) WaitErrLine(re string) string {
	p.T.Helper()
	return p.waitLine(p.ErrLines, "stderr", regexp.MustCompile(re))
}

func (p *Proc) waitLine(lines <-chan string, name string, re *regexp.Regexp) string {
	p.T.Helper()
	deadline := time.After(Patience)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				p.T.Fatalf("%s ended (exit: %v) before a line matching %q; stderr:\n%s", name, p.err, re, p.Stderr.String())
			}
			if re.MatchString(l) {
				return l
			}
		case <-deadline:
			p.T.Fatalf("no %s line matching %q within %s; stderr:\n%s", name, re, Patience, p.Stderr.String())
		}
	}
}

// WaitStderr waits until the whole of stderr contains s (which may span
// lines); it reads Stderr, not ErrLines.
func (p *Proc) WaitStderr(s string) {
	p.T.Helper()
	deadline := time.After(Patience)
	for !strings.Contains(p.Stderr.String(), s) {
		select {
		case <-p.done:
			if !strings.Contains(p.Stderr.String(), s) {
				p.T.Fatalf("exited (%v) without saying %q; stderr:\n%s", p.err, s, p.Stderr.String())
			}
		case <-deadline:
			p.T.Fatalf("stderr did not say %q within %s; stderr:\n%s", s, Patience, p.Stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Running fails the test if the process has exited.
func (p *Proc) Running() {
	p.T.Helper()
	select {
	case <-p.done:
		p.T.Fatalf("exited (%v); stderr:\n%s", p.err, p.Stderr.String())
	default:
	}
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig syscall.Signal) {
	p.T.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		p.T.Fatalf("signal %s: %v", sig, err)
	}
}

// Wait waits for the process to exit and returns its exit code.
func (p *Proc) Wait() int {
	p.T.Helper()
	select {
	case <-p.done:
	case <-time.After(Patience):
		p.T.Fatalf("did not exit within %s; stderr:\n%s", Patience, p.Stderr.String())
	}
	if p.err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	p.T.Fatalf("wait: %v", p.err)
	return -1
}

// Run runs cmd to completion (it is killed after Patience) and returns its
// stdout, stderr and exit code; it fails the test if cmd cannot run.
func Run(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	o := RunAll(t, cmd)[0]
	return o.Stdout, o.Stderr, o.Code
}

// Output is what a command printed and how it exited.
type Output struct {
	Stdout, Stderr string
	Code           int
}

// RunAll runs cmds side by side, as Run runs one: all are started, then
// awaited in turn (each killed after Patience). Commands that only read
// the same state, as kubectl's and ours in a comparison, take the time of
// the slower one instead of the sum.
func RunAll(t *testing.T, cmds ...*exec.Cmd) []Output {
	t.Helper()
	outs := make([]struct{ stdout, stderr strings.Builder }, len(cmds))
	for i, cmd := range cmds {
		cmd.Stdout, cmd.Stderr = &outs[i].stdout, &outs[i].stderr
		if err := cmd.Start(); err != nil {
			for _, started := range cmds[:i] {
				_ = started.Process.Kill()
				_ = started.Wait()
			}
			t.Fatalf("running %v: %v", cmd.Args, err)
		}
		timer := time.AfterFunc(Patience, func() { _ = cmd.Process.Kill() })
		defer timer.Stop()
	}
	res := make([]Output, len(cmds))
	var failed error
	for i, cmd := range cmds {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			res[i].Code = ee.ExitCode()
		case failed == nil:
			failed = fmt.Errorf("running %v: %w", cmd.Args, err)
		}
		res[i].Stdout, res[i].Stderr = outs[i].stdout.String(), outs[i].stderr.String()
	}
	if failed != nil {
		t.Fatal(failed)
	}
	return res
}

// HasFlag says whether args set flag (as "--flag" or "--flag=...").
func HasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}
