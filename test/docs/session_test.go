package docs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// patience bounds every command and every wait for a background one; it
// guards against hangs and is never a performance expectation.
const patience = 90 * time.Second

// session runs a page's commands: one working directory, one environment,
// the background jobs it started.
type session struct {
	t    *testing.T
	dir  string
	env  []string
	jobs []*job
}

// job is a background command, its output and how many of its lines were
// shown after it was started.
type job struct {
	cmd   *exec.Cmd
	out   *lineBuffer
	done  chan struct{}
	shown int
}

// newSession makes the environment of a page: kubeconfig (its current
// namespace demo), HOME, XDG_RUNTIME_DIR and a working directory of its
// own, binDir first on PATH.
func newSession(t *testing.T, kubeconfig string) *session {
	home, runtime, dir := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{
		"KUBECONFIG=" + kubeconfig, "HOME=" + home, "XDG_RUNTIME_DIR=" + runtime,
		"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "LANG=C", "TMPDIR=" + os.TempDir(),
	}
	s := &session{t: t, dir: dir, env: env}
	t.Cleanup(s.stopJobs)
	return s
}

// run runs one step's command and returns what it printed; await is how
// many lines a background command is awaited for.
func (s *session) run(cmd string, await int) []string {
	out, _ := s.runExit(cmd, await)
	return out
}

// runExit is run, with the command's exit code: -1 for what is not one
// command run to its end (a background one, wait, kill, export).
func (s *session) runExit(cmd string, await int) ([]string, int) {
	switch {
	case cmd == "wait":
		return s.waitJobs(), -1
	case strings.HasPrefix(cmd, "kill "):
		s.kill(cmd)
		return nil, -1
	case strings.HasSuffix(cmd, "&"):
		return s.start(strings.TrimSuffix(cmd, "&"), await), -1
	case exportLine.MatchString(cmd):
		return s.export(cmd), -1
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := s.command(ctx, cmd)
	out, err := c.CombinedOutput()
	if ctx.Err() != nil {
		s.t.Errorf("%s: still running after %s", cmd, patience)
	} else if err != nil && !errors.As(err, new(*exec.ExitError)) {
		s.t.Errorf("%s: %v", cmd, err)
	}
	return lines(string(out)), c.ProcessState.ExitCode()
}

// exportLine is a command that sets a variable for the page's next
// commands: `export NAME=VALUE`, VALUE expanded by bash.
var exportLine = regexp.MustCompile(`^export ([A-Za-z_][A-Za-z0-9_]*)=`)

// export runs an export line and keeps the variable it sets in the
// session's environment.
func (s *session) export(cmd string) []string {
	name := exportLine.FindStringSubmatch(cmd)[1]
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	out, err := s.command(ctx, cmd+` && printf '%s' "$`+name+`"`).Output()
	if err != nil {
		s.t.Fatalf("%s: %v", cmd, err)
	}
	s.env = append(s.env, name+"="+string(out))
	return nil
}

func (s *session) command(ctx context.Context, cmd string) *exec.Cmd {
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir, c.Env = s.dir, s.env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	return c
}

// start runs cmd in the background and returns the first await lines it
// printed, once it printed them (or fewer, if it ended first).
func (s *session) start(cmd string, await int) []string {
	j := &job{cmd: s.command(context.Background(), cmd), out: newLineBuffer(), done: make(chan struct{})}
	j.cmd.Stdout, j.cmd.Stderr = j.out, j.out
	if err := j.cmd.Start(); err != nil {
		s.t.Fatalf("%s: %v", cmd, err)
	}
	go func() { _ = j.cmd.Wait(); close(j.done) }()
	s.jobs = append(s.jobs, j)
	if !j.out.await(await, j.done, patience) {
		s.t.Fatalf("%s: printed %d of the %d lines awaited within %s:\n%s", cmd, j.out.count(), await, patience, j.out)
	}
	shown := lines(j.out.String())
	if len(shown) > await {
		shown = shown[:await]
	}
	j.shown = len(shown)
	return shown
}

// waitJobs waits for every background job and returns the output they
// printed after the lines shown when they started, in the order they
// started.
func (s *session) waitJobs() []string {
	var out []string
	for _, j := range s.jobs {
		select {
		case <-j.done:
		case <-time.After(patience):
			s.t.Errorf("%s: still running after %s", strings.Join(j.cmd.Args, " "), patience)
			_ = syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
			<-j.done
		}
		out = append(out, lines(j.out.String())[j.shown:]...)
	}
	s.jobs = nil
	return out
}

// kill runs `kill [-SIG] %N`: the signal (SIGTERM by default) to the Nth
// background job's process group.
func (s *session) kill(cmd string) {
	fields := strings.Fields(cmd)
	sig := syscall.SIGTERM
	if len(fields) == 3 && fields[1] == "-INT" {
		sig, fields = syscall.SIGINT, []string{fields[0], fields[2]}
	}
	n, err := strconv.Atoi(strings.TrimPrefix(fields[len(fields)-1], "%"))
	if len(fields) != 2 || err != nil || n < 1 || n > len(s.jobs) {
		s.t.Fatalf("%s: want kill [-INT] %%N, N a running job (%d running)", cmd, len(s.jobs))
	}
	_ = syscall.Kill(-s.jobs[n-1].cmd.Process.Pid, sig)
}

// stopJobs kills what a page left running.
func (s *session) stopJobs() {
	for _, j := range s.jobs {
		_ = syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL)
		<-j.done
	}
}

// writeFile writes a block a directive names into the working directory.
func (s *session) writeFile(name, content string) {
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// lineBuffer is a process's output, safe for its writer and readers,
// telling them when a line came.
type lineBuffer struct {
	mu      sync.Mutex
	b       strings.Builder
	lines   int
	changed chan struct{}
}

func newLineBuffer() *lineBuffer { return &lineBuffer{changed: make(chan struct{})} }

func (l *lineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	l.lines += strings.Count(string(p), "\n")
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *lineBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lineBuffer) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lines
}

// await returns true once n lines were written or done is closed, false
// after d.
func (l *lineBuffer) await(n int, done <-chan struct{}, d time.Duration) bool {
	timeout := time.After(d)
	for {
		l.mu.Lock()
		got, changed := l.lines, l.changed
		l.mu.Unlock()
		if got >= n {
			return true
		}
		select {
		case <-changed:
		case <-done:
			return true
		case <-timeout:
			return false
		}
	}
}
