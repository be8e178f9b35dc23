package cluster

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// patience bounds every wait for something to happen.
const patience = 2 * time.Minute

// env is one test's world: the cluster, a namespace, the directories of
// its daemon's files and history.
type env struct {
	t                 *testing.T
	cp                *controlplane.ControlPlane
	ns                string
	runtime, state    string
	kubeconfig        string
	apps              *controlplane.Deployments
	names             []string
	podCols, depsCols string
}

func (e *env) cmd(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.kubeconfig, "NO_COLOR=1", "XDG_RUNTIME_DIR="+e.runtime, "XDG_STATE_HOME="+e.state)
	return cmd
}

func (e *env) run(args ...string) (string, string, int) {
	e.t.Helper()
	return testkit.Run(e.t, e.cmd(binary, args...))
}

func (e *env) kubectl(args ...string) string {
	e.t.Helper()
	out, errOut, code := testkit.Run(e.t, e.cmd(kubectlBinary, args...))
	if code != 0 {
		e.t.Fatalf("kubectl %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// serve starts a daemon recording every kind and waits until it serves.
func (e *env) serve() *testkit.Proc {
	e.t.Helper()
	p := testkit.StartProc(e.t, e.cmd(binary, "serve", "--record"))
	p.WaitStderr(".kubeconfig\n")
	return p
}

// now is what kubectl prints of the pods and the Deployments.
func (e *env) now() (pods, deps string) {
	return e.kubectl("get", "pods", "-n", e.ns, "-o", e.podCols), e.kubectl("get", "deployments", "-n", e.ns, "-o", e.depsCols)
}

// settled is the state kubectl prints once the rollouts are complete, and
// a time inside a second no change of it was made in (the API server
// dates changes to the second).
func (e *env) settled() (pods, deps string, at time.Time) {
	e.t.Helper()
	if err := e.apps.AwaitComplete(e.t.Context(), e.names...); err != nil {
		e.t.Fatal(err)
	}
	nextSecond(time.Now())
	pods, deps = e.now()
	at = time.Now()
	nextSecond(at)
	return pods, deps, at
}

// nextSecond waits until the clock has passed the second t is in: what is
// tested is which second each change was made in, and no event tells
// that a second has passed.
func nextSecond(t time.Time) {
	time.Sleep(time.Until(t.Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
}

var uncertain = regexp.MustCompile(`^warning: \S+ \S+/(\S+) changed at a time between `)

// checkAt checks get --at of a time against what kubectl printed then:
// equal, but for the objects named on stderr as changed at a time the
// history cannot place (each line of a difference is of one of them).
// It returns how many were named.
func (e *env) checkAt(kind, cols string, at time.Time, want string) int {
	e.t.Helper()
	out, errOut, code := e.run("get", kind, "-n", e.ns, "-o", cols, "--at", at.Format(time.RFC3339Nano))
	if code != 0 {
		e.t.Fatalf("get %s --at %s: exit %d\n%s", kind, at.Format(time.RFC3339Nano), code, errOut)
	}
	var named []string
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if m := uncertain.FindStringSubmatch(line); m != nil {
			named = append(named, m[1])
		} else if line != "" {
			e.t.Errorf("get %s --at: an unexpected line on stderr: %q", kind, line)
		}
	}
	got, wanted := strings.Split(out, "\n"), strings.Split(want, "\n")
	for _, line := range append(diff(got, wanted), diff(wanted, got)...) {
		if name := strings.Fields(line)[0]; !slices.Contains(named, name) {
			e.t.Errorf("get %s --at %s: %q differs from what kubectl printed then, and is not named as uncertain (%v)\ngot:\n%s\nkubectl:\n%s", kind, at.Format(time.RFC3339Nano), line, named, out, want)
		}
	}
	if len(named) > 0 {
		_, errOut, code := e.run("get", kind, "-n", e.ns, "-o", cols, "--at", at.Format(time.RFC3339Nano), "--strict")
		if code != 1 || !strings.HasPrefix(errOut, "error: the state at ") || strings.Count(errOut, "\n") != 1 {
			e.t.Errorf("get %s --at --strict with objects uncertain: exit %d, %q", kind, code, errOut)
		}
	}
	return len(named)
}

// diff is the lines of a not in b.
func diff(a, b []string) []string {
	var out []string
	for _, l := range a {
		if l != "" && !slices.Contains(b, l) {
			out = append(out, l)
		}
	}
	return out
}

// TestOutageDuringRollouts records a cluster of kwok nodes whose
// Deployments roll, kills the daemon (SIGKILL) while they go on rolling
// and scaling, and starts it again: get --at a time before the outage is
// exact; a time inside it prints what kubectl printed then, but for the
// objects it names on stderr (whose change the API server's times do not
// place), which --strict refuses; and the state after the restart is the
// cluster's.
func TestOutageDuringRollouts(t *testing.T) {
	cp := cluster.Get(t)
	cfg := cp.AdminConfig()
	cs := kubernetes.NewForConfigOrDie(cfg)
	e := &env{t: t, cp: cp, ns: testkit.Namespace(t, cs), runtime: t.TempDir(), state: t.TempDir(), kubeconfig: cp.AdminKubeconfig(),
		podCols:  "custom-columns=NAME:.metadata.name,PHASE:.status.phase,NODE:.spec.nodeName,IMAGE:.spec.containers[0].image",
		depsCols: "custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas,READY:.status.readyReplicas,IMAGE:.spec.template.spec.containers[0].image"}
	ctx := t.Context()
	var err error
	if e.apps, e.names, err = cp.MakeShape(ctx, controlplane.Shape{Namespace: e.ns, Deployments: 3, Replicas: 4}); err != nil {
		t.Fatal(err)
	}
	p := e.serve()
	if _, err := e.apps.Rollout(ctx, e.names[0]); err != nil {
		t.Fatal(err)
	}
	beforePods, beforeDeps, before := e.settled()
	e.awaitRecorded(beforePods)
	p.Signal(syscall.SIGKILL)
	p.Wait()

	if _, err := e.apps.Rollout(ctx, e.names[1]); err != nil {
		t.Fatal(err)
	}
	if err := e.apps.Scale(ctx, e.names[2], 6); err != nil {
		t.Fatal(err)
	}
	duringPods, duringDeps, during := e.settled()
	if _, err := e.apps.Rollout(ctx, e.names[0]); err != nil {
		t.Fatal(err)
	}
	if err := e.apps.Scale(ctx, e.names[1], 2); err != nil {
		t.Fatal(err)
	}
	if err := e.apps.AwaitComplete(ctx, e.names...); err != nil {
		t.Fatal(err)
	}
	e.serve()
	afterPods, _ := e.now()
	e.awaitRecorded(afterPods)

	if n := e.checkAt("pods", e.podCols, before, beforePods) + e.checkAt("deployments", e.depsCols, before, beforeDeps); n != 0 {
		t.Errorf("get --at before the outage named %d objects uncertain", n)
	}
	pods := e.checkAt("pods", e.podCols, during, duringPods)
	deps := e.checkAt("deployments", e.depsCols, during, duringDeps)
	t.Logf("inside the outage: %d pods and %d deployments uncertain of %d and %d", pods, deps, strings.Count(duringPods, "\n")-1, strings.Count(duringDeps, "\n")-1)
}

// awaitRecorded waits until the history's latest state of the pods is
// want (kubectl's).
func (e *env) awaitRecorded(want string) {
	e.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		out, _, code := e.run("get", "pods", "-n", e.ns, "-o", e.podCols, "--at", "0s")
		if code == 0 && out == want {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the history never held the pods kubectl lists:\n%s\nwant:\n%s", out, want)
		}
		time.Sleep(200 * time.Millisecond) // polling a file another process writes: no event to await
	}
}
