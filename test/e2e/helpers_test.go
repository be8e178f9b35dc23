package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// patience bounds every wait for something that should happen; it guards
// against hangs and is never a performance expectation.
const patience = 60 * time.Second

// proc is a running kubectl-reflect.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

type syncBuffer = testkit.SyncBuffer

// start runs the binary with args and the admin kubeconfig unless args set
// --kubeconfig.
func start(t *testing.T, cp *controlplane.ControlPlane, args ...string) *proc {
	t.Helper()
	if !hasFlag(args, "--kubeconfig") {
		args = append(args, "--kubeconfig", cp.AdminKubeconfig())
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	return startCmd(t, cmd)
}

// startKubectl runs kubectlBinary with args and the admin kubeconfig, as
// start runs ours.
func startKubectl(t *testing.T, cp *controlplane.ControlPlane, args ...string) *proc {
	t.Helper()
	return startCmd(t, exec.Command(kubectlBinary, append(args, "--kubeconfig", cp.AdminKubeconfig())...))
}

// startCmd starts cmd, reads its stdout line by line and kills it when the
// test ends, logging its stderr if the test failed.
func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, lines: make(chan string, 100000), stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %v: %v", cmd.Args, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		p.err = cmd.Wait()
		close(p.lines)
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", cmd.Args, p.stderr.String())
		}
	})
	return p
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// next returns the next line of output, failing the test if none comes.
func (p *proc) next() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("output ended (exit: %v); stderr:\n%s", p.err, p.stderr.String())
		}
		return l
	case <-time.After(patience):
		p.t.Fatalf("no output line within %s; stderr:\n%s", patience, p.stderr.String())
	}
	return ""
}

// quiet asserts that no line comes for d: nothing was printed that should
// not have been.
func (p *proc) quiet(d time.Duration) {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if ok {
			p.t.Errorf("unexpected output: %s", l)
		}
	case <-time.After(d):
	}
}

// untilLine calls act(0), act(1), ... every half second until a line is
// printed, and returns it: it makes changes until a watch that has just
// started (and prints nothing at first) shows one.
func (p *proc) untilLine(act func(i int)) string {
	p.t.Helper()
	deadline := time.After(patience)
	for i := 0; ; i++ {
		act(i)
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("output ended (exit: %v); stderr:\n%s", p.err, p.stderr.String())
			}
			return l
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			p.t.Fatalf("no output line within %s; stderr:\n%s", patience, p.stderr.String())
		}
	}
}

// linesUntilQuiet reads lines until none comes for d.
func (p *proc) linesUntilQuiet(d time.Duration) []string {
	var lines []string
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return lines
			}
			lines = append(lines, l)
		case <-time.After(d):
			return lines
		}
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(patience):
		p.t.Fatalf("did not exit within %s; stderr:\n%s", patience, p.stderr.String())
	}
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	p.t.Fatalf("wait: %v", p.err)
	return -1
}

// event is one NDJSON line of `watch -o json`.
type event struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Namespace       string `json:"namespace"`
			Name            string `json:"name"`
			UID             string `json:"uid"`
			ResourceVersion string `json:"resourceVersion"`
			ManagedFields   []any  `json:"managedFields"`
		} `json:"metadata"`
		Data map[string]string `json:"data"`
	} `json:"object"`
}

func (e event) key() string {
	return e.Object.Kind + "/" + e.Object.Metadata.Namespace + "/" + e.Object.Metadata.Name
}

func (e event) String() string { return e.Type + " " + e.key() }

// nextEvent reads one NDJSON event.
func (p *proc) nextEvent() event {
	p.t.Helper()
	l := p.next()
	var e event
	if err := json.Unmarshal([]byte(l), &e); err != nil {
		p.t.Fatalf("not an NDJSON event: %q: %v", l, err)
	}
	if e.Type != "APPLIED" && e.Type != "DELETED" {
		p.t.Fatalf("event type %q in %q", e.Type, l)
	}
	return e
}

// events reads n NDJSON events.
func (p *proc) events(n int) []event {
	p.t.Helper()
	out := make([]event, n)
	for i := range out {
		out[i] = p.nextEvent()
	}
	return out
}

// eventStrings renders events as "TYPE Kind/ns/name", sorted for set
// comparisons when sorted is true.
func eventStrings(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.String()
	}
	return out
}

// namespace creates a namespace for one test and deletes it afterwards.
var namespace = testkit.Namespace

// admin is a clientset with the admin kubeconfig.
var admin = testkit.Admin

func createCM(t *testing.T, cs kubernetes.Interface, ns, name string, labels map[string]string, data ...string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Data: map[string]string{}}
	for i := 0; i+1 < len(data); i += 2 {
		cm.Data[data[i]] = data[i+1]
	}
	out, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating configmap %s: %v", name, err)
	}
	return out
}

func updateCM(t *testing.T, cs kubernetes.Interface, ns, name, key, value string) *corev1.ConfigMap {
	t.Helper()
	ctx := context.Background()
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[key] = value
	out, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("updating configmap %s: %v", name, err)
	}
	return out
}

func deleteCM(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	if err := cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting configmap %s: %v", name, err)
	}
}

// runOnce runs the binary to completion and returns stdout, stderr and the
// exit code.
func runOnce(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errOut.String(), code
}
