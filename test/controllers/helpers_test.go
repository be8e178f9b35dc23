package controllers

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
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
const patience = testkit.Patience

// pollEvery is how often eventually asks the API server again.
const pollEvery = 50 * time.Millisecond

// proc is a running kubectl-reflect.
type proc = testkit.Proc

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
	if !testkit.HasFlag(args, "--kubeconfig") {
		args = append(args, "--kubeconfig", cp.AdminKubeconfig())
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	return startCmd(t, cmd)
}

func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	return testkit.StartProc(t, cmd)
}

// runOnce runs the binary to completion with the admin kubeconfig unless
// args set one, and returns stdout, stderr and the exit code.
func runOnce(t *testing.T, cp *controlplane.ControlPlane, args ...string) (string, string, int) {
	t.Helper()
	if cp != nil && !testkit.HasFlag(args, "--kubeconfig") {
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
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	return testkit.Run(t, cmd)
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
	cmd := exec.Command(kubectlBinary, append(args, "--kubeconfig", cp.AdminKubeconfig())...)
	cmd.Stdin = strings.NewReader(stdin)
	return testkit.Run(t, cmd)
}

// runtimeConvert converts an unstructured object into a typed one.
func runtimeConvert(u *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}
