//go:build linux

package demo

import (
	"bufio"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// patience bounds every wait for something that should happen; it guards
// against hangs and is never a performance expectation.
const patience = 90 * time.Second

// TestDemoShowsChangesUntilCtrlC: the demo keeps printing changes round
// after round (the old script died in round 2), a deletion and a
// re-creation among them, the Deployment gets its ReplicaSet, the
// configmap-generator controller creates the ConfigMap of a generator,
// restores it when it is edited and creates it again when it is deleted, and
// Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops
// everything and removes every temporary directory.
func TestDemoShowsChangesUntilCtrlC(t *testing.T) {
	skipIfShort(t)
	t.Parallel() // each demo has its own control plane, TMPDIR and marker
	d := startDemo(t)
	d.waitFor("a ReplicaSet of deployment web", func(event, name string) bool {
		return event == "APPLIED" && strings.HasPrefix(name, "replicaset.apps/web-")
	})
	d.waitFor("configmap settings-3 deleted", func(event, name string) bool {
		return event == "DELETED" && name == "configmap/settings-3"
	})
	// Round 2: the generator, then the ConfigMap the controller makes.
	d.waitFor("configmapgenerator greeting", func(event, name string) bool {
		return event == "APPLIED" && name == "configmapgenerator.kubectl-reflect.io/greeting"
	})
	d.waitFor("configmap greeting generated", func(event, name string) bool {
		return event == "APPLIED" && name == "configmap/greeting"
	})
	d.waitFor("configmap settings-3 created again", func(event, name string) bool {
		return event == "APPLIED" && name == "configmap/settings-3"
	})
	// Round 3 edits configmap greeting by hand, round 4 deletes it: the
	// controller restores it, then creates it again.
	d.waitFor("configmap greeting deleted", func(event, name string) bool {
		return event == "DELETED" && name == "configmap/greeting"
	})
	d.waitFor("configmap greeting created again", func(event, name string) bool {
		return event == "APPLIED" && name == "configmap/greeting"
	})
	for _, repair := range []string{
		" configmap-generator demo/greeting change:configmaps/demo/greeting ", // the edit, and the deletion, repaired
	} {
		if n := strings.Count(d.stderr.String(), repair); n < 2 {
			d.t.Errorf("the controller's log has %d lines with %q, want the edit and the deletion repaired:\n%s", n, repair, d.stderr.String())
		}
	}
	// settings-1 changes every round: three more changes after the
	// re-creation in round 3 take the demo to round 6 at least, well past
	// round 2, where it used to stop.
	updates := 0
	d.waitFor("three more updates of configmap settings-1", func(event, name string) bool {
		if event == "APPLIED" && name == "configmap/settings-1" {
			updates++
		}
		return updates == 3
	})
	running := d.processes()
	for _, want := range []string{"bash", "controlplane", "etcd", "kube-apiserver", "kube-controller", "kubectl-reflect"} {
		if !slices.ContainsFunc(running, func(p string) bool { return strings.HasPrefix(p, want+" ") }) {
			t.Errorf("no %s among the demo's processes %v: the check for leftovers would miss it", want, running)
		}
	}

	d.signal(syscall.SIGINT, true)
	d.checkStopped()
}

// TestDemoStopsOnSIGTERM: SIGTERM to the script alone (a process manager,
// `timeout`, `kill PID`) stops everything it started too.
func TestDemoStopsOnSIGTERM(t *testing.T) {
	skipIfShort(t)
	t.Parallel() // each demo has its own control plane, TMPDIR and marker
	d := startDemo(t)
	d.waitFor("the watch's first line", func(event, name string) bool { return event == "APPLIED" })
	d.signal(syscall.SIGTERM, false)
	d.checkStopped()
}

// TestDemoReportsAControlPlaneThatCannotStart: when the control plane
// fails to start (here etcd exits at once), the demo says so with the
// control plane's error, exits 1 and leaves nothing behind.
func TestDemoReportsAControlPlaneThatCannotStart(t *testing.T) {
	skipIfShort(t)
	t.Parallel() // each demo has its own control plane, TMPDIR and marker
	// A binary cache whose etcd fails, found under the real cache key.
	cache := t.TempDir()
	bins := controlPlaneBinaries
	dir := filepath.Join(cache, filepath.Base(bins.Dir))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	etcd := "#!/bin/sh\necho 'etcd: broken on purpose by the test' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(bins.Etcd)), []byte(etcd), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, real := range []string{bins.APIServer, bins.ControllerManager, bins.Kubectl} {
		if err := os.Symlink(real, filepath.Join(dir, filepath.Base(real))); err != nil {
			t.Fatal(err)
		}
	}

	d := startDemo(t, controlplane.CacheEnv+"="+cache)
	select {
	case <-d.done:
	case <-time.After(patience):
		t.Fatalf("the demo did not exit within %s", patience)
	}
	var exit *exec.ExitError
	if !errors.As(d.err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("the demo exited with %v, want status 1", d.err)
	}
	for _, want := range []string{"error: demo: the control plane did not start", "etcd: broken on purpose by the test"} {
		if !strings.Contains(d.stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, d.stderr.String())
		}
	}
	d.checkNothingLeft()
}

func skipIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a local control plane; skipped with -short")
	}
}

// demo is a running hack/demo.sh.
type demo struct {
	t      *testing.T
	cmd    *exec.Cmd
	marker string // an environment entry that only the demo's processes carry
	tmpDir string // the demo's TMPDIR, empty at the start
	lines  chan string
	stderr *syncBuffer
	done   chan struct{} // closed when the script has exited
	err    error         // cmd.Wait's, valid after done
}

// startDemo runs hack/demo.sh with env added to its environment.
func startDemo(t *testing.T, env ...string) *demo {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "hack", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	d := &demo{
		t:      t,
		marker: "KUBECTL_REFLECT_DEMO_TEST=" + rand.Text(),
		tmpDir: t.TempDir(),
		lines:  make(chan string, 10000),
		stderr: &syncBuffer{},
		done:   make(chan struct{}),
	}
	d.cmd = exec.Command("bash", script)
	d.cmd.Env = append(os.Environ(), d.marker, "TMPDIR="+d.tmpDir, "DEMO_BIN_DIR="+binDir,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	d.cmd.Env = append(d.cmd.Env, env...)
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, like a job in a terminal
	d.cmd.Stderr = d.stderr
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		d.err = d.cmd.Wait()
		close(d.lines)
		close(d.done)
	}()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default: // a failed test: stop the demo as a user would
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGINT)
			<-d.done
		}
		if t.Failed() {
			t.Logf("stderr of the demo:\n%s", d.stderr.String())
		}
	})
	return d
}

// waitFor reads the watch's table lines until match accepts one, given its
// EVENT and NAME columns.
func (d *demo) waitFor(what string, match func(event, name string) bool) {
	d.t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				d.t.Fatalf("waiting for %s: the demo ended (%v)", what, d.err)
			}
			if f := strings.Fields(l); len(f) >= 2 && match(f[0], f[1]) {
				return
			}
		case <-deadline:
			d.logComponentLogs()
			d.t.Fatalf("waiting for %s: not within %s", what, patience)
		}
	}
}

// logComponentLogs logs the end of each control-plane component's log,
// which the demo removes when it stops.
func (d *demo) logComponentLogs() {
	logs, _ := filepath.Glob(filepath.Join(d.tmpDir, "kubectl-reflect-controlplane-*", "logs", "*.log"))
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		d.t.Logf("last lines of %s:\n%s", filepath.Base(l), strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
}

// signal sends sig to the script, or to its whole process group.
func (d *demo) signal(sig syscall.Signal, group bool) {
	d.t.Helper()
	pid := d.cmd.Process.Pid
	if group {
		pid = -pid
	}
	if err := syscall.Kill(pid, sig); err != nil {
		d.t.Fatal(err)
	}
}

// checkStopped waits for the script to exit and checks that it exited 0
// after saying so, leaving nothing behind.
func (d *demo) checkStopped() {
	d.t.Helper()
	go func() { // drain the rest of the watch's output
		for range d.lines {
		}
	}()
	select {
	case <-d.done:
	case <-time.After(patience):
		d.t.Fatalf("the demo did not exit within %s; still running: %v", patience, d.processes())
	}
	if d.err != nil {
		d.t.Errorf("the demo exited with %v, want status 0", d.err)
	}
	if !strings.Contains(d.stderr.String(), "demo: stopped and cleaned up") {
		d.t.Errorf("the demo did not say it stopped and cleaned up")
	}
	if strings.Contains(d.stderr.String(), "did not stop on SIGTERM") {
		d.t.Errorf("the demo had to kill a process that ignored SIGTERM")
	}
	d.checkNothingLeft()
}

// checkNothingLeft checks that no process the demo started is left and that
// its TMPDIR is empty again.
func (d *demo) checkNothingLeft() {
	d.t.Helper()
	if left := d.processes(); len(left) > 0 {
		d.t.Errorf("processes left running: %v", left)
	}
	entries, err := os.ReadDir(d.tmpDir)
	if err != nil {
		d.t.Fatal(err)
	}
	for _, e := range entries {
		d.t.Errorf("left in TMPDIR: %s", e.Name())
	}
}

// processes returns "COMMAND PID" of the processes that carry the
// demo's marker in their environment: the script and everything it started,
// the control plane's components (in process groups of their own) included.
func (d *demo) processes() []string {
	d.t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		d.t.Fatal(err)
	}
	var names []string
	for _, dir := range dirs {
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), d.marker) {
			continue // gone, not ours, or a zombie (its environment reads empty)
		}
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil {
			continue
		}
		names = append(names, strings.TrimSpace(string(comm))+" "+filepath.Base(dir))
	}
	return names
}

type syncBuffer = testkit.SyncBuffer
