package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// patience bounds every wait for something that should happen; it guards
// against hangs and is never a performance expectation.
const patience = testkit.Patience

// proc is a running kubectl-reflect (or kubectl): testkit.Proc, and the
// NDJSON events of `watch -o json`.
type proc struct{ *testkit.Proc }

type syncBuffer = testkit.SyncBuffer

// start runs the binary with args and the admin kubeconfig unless args set
// --kubeconfig.
func start(t *testing.T, cp *controlplane.ControlPlane, args ...string) *proc {
	t.Helper()
	if !testkit.HasFlag(args, "--kubeconfig") {
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

// startCmd starts cmd (testkit.StartProc).
func startCmd(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	return &proc{testkit.StartProc(t, cmd)}
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
	p.T.Helper()
	l := p.Next()
	var e event
	if err := json.Unmarshal([]byte(l), &e); err != nil {
		p.T.Fatalf("not an NDJSON event: %q: %v", l, err)
	}
	if e.Type != "APPLIED" && e.Type != "DELETED" {
		p.T.Fatalf("event type %q in %q", e.Type, l)
	}
	return e
}

// events reads n NDJSON events.
func (p *proc) events(n int) []event {
	p.T.Helper()
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

// createCMs creates ConfigMaps named by the format name (given 0 to n-1)
// in ns, 16 at a time: a test that needs many has no use for their order.
func createCMs(t *testing.T, cs kubernetes.Interface, ns, name string, n int) {
	t.Helper()
	var g errgroup.Group
	g.SetLimit(16)
	for i := range n {
		g.Go(func() error {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf(name, i), Namespace: ns}}
			_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("creating configmaps %s: %v", name, err)
	}
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

func createSecret(t *testing.T, cs kubernetes.Interface, ns, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, StringData: map[string]string{"a": "b"}}
	out, err := cs.CoreV1().Secrets(ns).Create(context.Background(), s, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating secret %s: %v", name, err)
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
	return testkit.Run(t, ours(env, args...))
}

// ours is the command that runs the binary with args, in env.
func ours(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	return cmd
}

// kubectlAndOurs runs kubectl with kubectlArgs and the binary with
// ourArgs side by side (testkit.RunAll): both read the same state.
func kubectlAndOurs(t *testing.T, kubectlArgs, ourArgs []string) (want, got testkit.Output) {
	t.Helper()
	outs := testkit.RunAll(t, exec.Command(kubectlBinary, kubectlArgs...), ours(nil, ourArgs...))
	return outs[0], outs[1]
}
