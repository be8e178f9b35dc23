package controllers

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// patience bounds every wait for something that should happen; it guards
// against hangs and is never a performance expectation.
const patience = 60 * time.Second

// pollEvery is how often eventually asks the API server again.
const pollEvery = 50 * time.Millisecond

// proc is a running kubectl-reflect: its stdout and stderr line by line,
// and the whole of each.
type proc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr chan string // every line, in order; closed at exit
	allOut, allErr *syncBuffer
	done           chan struct{}
	err            error
	streams        sync.WaitGroup
}

type syncBuffer = testkit.SyncBuffer

// start runs the binary with args and the admin kubeconfig unless args set
// --kubeconfig. It is killed when the test ends; its stderr is logged if
// the test failed.
func start(t *testing.T, cp *controlplane.ControlPlane, args ...string) *proc {
	t.Helper()
	return startEnv(t, cp, nil, args...)
}

// startEnv is start with env added to the environment.
func startEnv(t *testing.T, cp *controlplane.ControlPlane, env []string, args ...string) *proc {
	t.Helper()
	if !hasFlag(args, "--kubeconfig") {
		args = append(args, "--kubeconfig", cp.AdminKubeconfig())
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	return startCmd(t, cmd)
}

func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{
		t: t, cmd: cmd, stdout: make(chan string, 100000), stderr: make(chan string, 100000),
		allOut: &syncBuffer{}, allErr: &syncBuffer{}, done: make(chan struct{}),
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %v: %v", cmd.Args, err)
	}
	p.streams.Go(func() { readLines(out, p.stdout, p.allOut) })
	p.streams.Go(func() { readLines(errOut, p.stderr, p.allErr) })
	go func() {
		p.streams.Wait() // Wait closes the pipes: read them to the end first
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("stderr of %v:\n%s", cmd.Args, p.allErr.String())
		}
	})
	return p
}

func readLines(r io.Reader, lines chan<- string, all *syncBuffer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		all.Write([]byte(sc.Text() + "\n"))
		select {
		case lines <- sc.Text():
		default: // nobody reads this stream: all has it
		}
	}
	close(lines)
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// waitErrLine reads stderr until a line matches re and returns it.
func (p *proc) waitErrLine(re string) string {
	p.t.Helper()
	return p.waitLine(p.stderr, "stderr", regexp.MustCompile(re))
}

// waitOutLine reads stdout until a line matches re and returns it.
func (p *proc) waitOutLine(re string) string {
	p.t.Helper()
	return p.waitLine(p.stdout, "stdout", regexp.MustCompile(re))
}

func (p *proc) waitLine(lines <-chan string, name string, re *regexp.Regexp) string {
	p.t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				p.t.Fatalf("%s ended (exit: %v) before a line matching %q; stderr:\n%s", name, p.err, re, p.allErr.String())
			}
			if re.MatchString(l) {
				return l
			}
		case <-deadline:
			p.t.Fatalf("no %s line matching %q within %s; stderr:\n%s", name, re, patience, p.allErr.String())
		}
	}
}

// signal sends sig to the process.
func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %s: %v", sig, err)
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(patience):
		p.t.Fatalf("did not exit within %s; stderr:\n%s", patience, p.allErr.String())
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

// runOnce runs the binary to completion with the admin kubeconfig unless
// args set one, and returns stdout, stderr and the exit code.
func runOnce(t *testing.T, cp *controlplane.ControlPlane, args ...string) (string, string, int) {
	t.Helper()
	if cp != nil && !hasFlag(args, "--kubeconfig") {
		args = append(args, "--kubeconfig", cp.AdminKubeconfig())
	}
	return runBinary(t, binary, args...)
}

// kubectl runs kubectlBinary with args and the admin kubeconfig.
func kubectl(t *testing.T, cp *controlplane.ControlPlane, args ...string) (string, string, int) {
	t.Helper()
	return runBinary(t, kubectlBinary, append(args, "--kubeconfig", cp.AdminKubeconfig())...)
}

func runBinary(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %s %v: %v", bin, args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// namespace creates a namespace for one test and deletes it afterwards.
var namespace = testkit.Namespace

// admin is a clientset with the admin kubeconfig.
var admin = testkit.Admin

// adminDynamic is a dynamic client with the admin kubeconfig.
func adminDynamic(t *testing.T, cp *controlplane.ControlPlane) dynamic.Interface {
	t.Helper()
	d, err := dynamic.NewForConfig(cp.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// eventually asks cond until it holds, within patience; what names the
// condition in the failure, with cond's last error if any.
func eventually(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), pollEvery, patience, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s (last error: %s)", what, patience, last)
	}
}

var crdOnce struct {
	sync.Mutex
	installed bool
}

// installCRD installs the ConfigMapGenerator CRD with `crd install` once per
// test binary.
func installCRD(t *testing.T, cp *controlplane.ControlPlane) {
	t.Helper()
	crdOnce.Lock()
	defer crdOnce.Unlock()
	if crdOnce.installed {
		return
	}
	if out, errOut, code := runOnce(t, cp, "crd", "install", "configmap-generator"); code != 0 {
		t.Fatalf("crd install: exit %d\n%s%s", code, out, errOut)
	}
	crdOnce.installed = true
}

// kubectlStdin runs kubectlBinary with args, stdin as its input.
func kubectlStdin(t *testing.T, cp *controlplane.ControlPlane, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlBinary, append(args, "--kubeconfig", cp.AdminKubeconfig())...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running kubectl %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// runtimeConvert converts an unstructured object into a typed one.
func runtimeConvert(u *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}
