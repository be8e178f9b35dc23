package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// patience bounds every wait for something to happen.
const patience = 60 * time.Second

// env is one test's world: the cluster, a namespace, and the directories
// where its daemon writes its files and its history.
type env struct {
	t          *testing.T
	cp         *controlplane.ControlPlane
	cs         kubernetes.Interface
	ns         string
	runtime    string // XDG_RUNTIME_DIR
	state      string // XDG_STATE_HOME
	kubeconfig string
}

func newEnv(t *testing.T) *env {
	cp := cluster.Get(t)
	cfg := cp.AdminConfig()
	cfg.QPS, cfg.Burst = 500, 1000 // a burst of writes is not held back by client-go's default 5 per second
	cs := kubernetes.NewForConfigOrDie(cfg)
	return &env{t: t, cp: cp, cs: cs, ns: testkit.Namespace(t, cs), runtime: t.TempDir(), state: t.TempDir(), kubeconfig: cp.AdminKubeconfig()}
}

func (e *env) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.kubeconfig, "NO_COLOR=1", "XDG_RUNTIME_DIR="+e.runtime, "XDG_STATE_HOME="+e.state)
	return cmd
}

// run runs kubectl-reflect.
func (e *env) run(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	return testkit.Run(e.t, e.cmd(binary, args...))
}

// mustRun runs kubectl-reflect and fails the test unless it exits 0.
func (e *env) mustRun(args ...string) string {
	e.t.Helper()
	out, errOut, code := e.run(args...)
	if code != 0 {
		e.t.Fatalf("kubectl-reflect %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// kubectl runs kubectl and fails the test unless it exits 0.
func (e *env) kubectl(args ...string) string {
	e.t.Helper()
	out, errOut, code := testkit.Run(e.t, e.cmd(kubectlBinary, args...))
	if code != 0 {
		e.t.Fatalf("kubectl %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// serve starts `serve args... --record` and waits until it serves.
func (e *env) serve(args ...string) *testkit.Proc {
	e.t.Helper()
	p := testkit.StartProc(e.t, e.cmd(binary, append([]string{"serve"}, args...)...))
	p.WaitStderr(".kubeconfig\n")
	return p
}

// historyFile is the default history of the test's daemon.
func (e *env) historyFile() string {
	matches, _ := filepath.Glob(filepath.Join(e.state, "kubectl-reflect", "history", "*.db"))
	if len(matches) != 1 {
		e.t.Fatalf("history files: %v", matches)
	}
	return matches[0]
}

func (e *env) createCM(name string, labels map[string]string, kv ...string) *corev1.ConfigMap {
	e.t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		cm.Data[kv[i]] = kv[i+1]
	}
	out, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(context.Background(), cm, metav1.CreateOptions{FieldManager: "creator"})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *env) updateCM(name, manager string, kv ...string) *corev1.ConfigMap {
	e.t.Helper()
	ctx := context.Background()
	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		cm.Data[kv[i]] = kv[i+1]
	}
	out, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: manager})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *env) createSecret(name string) *corev1.Secret {
	e.t.Helper()
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: map[string]string{"k": name}}
	out, err := e.cs.CoreV1().Secrets(e.ns).Create(context.Background(), sec, metav1.CreateOptions{FieldManager: "creator"})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *env) deleteCM(name string) {
	e.t.Helper()
	if err := e.cs.CoreV1().ConfigMaps(e.ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// recorded waits until the history of config map name shows a revision
// whose line holds want (a resourceVersion, an operation).
func (e *env) recorded(name, want string) string {
	e.t.Helper()
	return e.recordedAs("cm/"+name, want)
}

// recordedAs waits until the history of object (KIND/NAME) shows a
// revision whose line holds want.
func (e *env) recordedAs(object, want string) string {
	e.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		out, _, code := e.run("history", object, "-n", e.ns)
		if code == 0 && strings.Contains(out, want) {
			return out
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("history of %s never showed %q:\n%s", object, want, out)
		}
		time.Sleep(100 * time.Millisecond) // polling a file another process writes: no event to await
	}
}

// stopServe stops a daemon with SIGTERM and waits for it to exit 0.
func stopServe(t *testing.T, p *testkit.Proc) {
	t.Helper()
	p.Signal(syscall.SIGTERM)
	if code := p.Wait(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
}

// checkOps checks the operations of each config map's history.
func (e *env) checkOps(want map[string][]string) {
	e.t.Helper()
	for name, ops := range want {
		out := e.recorded(name, ops[len(ops)-1])
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			got = append(got, strings.Fields(line)[2])
		}
		if strings.Join(got, " ") != strings.Join(ops, " ") {
			e.t.Errorf("history of %s, want %v:\n%s", name, ops, out)
		}
	}
}

// daemonKubeconfig is the kubeconfig a running daemon wrote.
func daemonKubeconfig(p *testkit.Proc) string {
	_, after, _ := strings.Cut(p.Stderr.String(), "kubeconfig: ")
	path, _, _ := strings.Cut(after, "\n")
	return path
}

// daemonMetric is the value of one series of the daemon's /metrics ("" when
// it has none).
func (e *env) daemonMetric(p *testkit.Proc, series string) string {
	e.t.Helper()
	for line := range strings.SplitSeq(e.kubectl("--kubeconfig", daemonKubeconfig(p), "get", "--raw", "/metrics"), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}

// servesWhatServerLists checks that the daemon lists the test's namespace
// as the API server does, objects and resourceVersions, once it has seen
// the namespace's latest change.
func (e *env) servesWhatServerLists(p *testkit.Proc) {
	e.t.Helper()
	cols := "custom-columns=NAME:.metadata.name,RV:.metadata.resourceVersion,DATA:.data"
	want := e.kubectl("get", "cm", "-n", e.ns, "-o", cols)
	if got := e.kubectl("--kubeconfig", daemonKubeconfig(p), "get", "cm", "-n", e.ns, "-o", cols); got != want {
		e.t.Errorf("the daemon lists:\n%s\nthe API server:\n%s", got, want)
	}
}

// forgetChanges makes the API server forget the changes made so far
// (etcd compacted, the API server restarted): a watch from before them is
// refused with 410 Gone, and a daemon restarted then relists.
func (e *env) forgetChanges() {
	e.t.Helper()
	ctx := e.t.Context()
	if err := e.cp.CompactEtcd(ctx); err != nil {
		e.t.Fatal(err)
	}
	if err := e.cp.RestartAPIServer(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// recordThree starts a daemon recording config maps and creates three,
// kept, changed and gone (each k=1), once it has recorded them.
func (e *env) recordThree() *testkit.Proc {
	e.t.Helper()
	p := e.serve("configmaps", "--record")
	e.createCM("kept", nil, "k", "1")
	e.createCM("changed", nil, "k", "1")
	gone := e.createCM("gone", nil, "k", "1")
	e.recorded("gone", gone.ResourceVersion)
	return p
}
