package multicluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// patience bounds every wait; never a performance expectation.
const patience = testkit.Patience

// clients are the admin clientsets of the fleet's clusters, by name.
func clients(t *testing.T, f *controlplane.Fleet) map[string]kubernetes.Interface {
	t.Helper()
	out := map[string]kubernetes.Interface{}
	for _, name := range f.Names() {
		cfg := f.Cluster(name).AdminConfig()
		cfg.QPS, cfg.Burst = -1, 0 // a burst of updates is not throttled
		out[name] = kubernetes.NewForConfigOrDie(cfg)
	}
	return out
}

// namespaceIn creates the same namespace, named after the test, in each of
// the clusters, and deletes it when the test ends.
func namespaceIn(t *testing.T, cs map[string]kubernetes.Interface) string {
	t.Helper()
	var name string
	for _, c := range cs {
		if name == "" {
			name = testkit.Namespace(t, c)
			continue
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := c.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	return name
}

// createCM creates config map name in ns with data k=v pairs.
func createCM(t *testing.T, cs kubernetes.Interface, ns, name string, kv ...string) *corev1.ConfigMap {
	t.Helper()
	data := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		data[kv[i]] = kv[i+1]
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// kubeconfig is a copy of the fleet's kubeconfig, its current namespace
// ns in every context, with edit applied, for a test to change.
func kubeconfig(t *testing.T, f *controlplane.Fleet, ns string, edit func(*clientcmdapi.Config)) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(f.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Contexts {
		c.Namespace = ns
	}
	if edit != nil {
		edit(cfg)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// run runs kubectl-reflect with args and KUBECONFIG=kc.
func run(t *testing.T, kc string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kc, "NO_COLOR=1", "XDG_RUNTIME_DIR="+runtimeDir(t), "XDG_STATE_HOME="+stateDir(t))
	return testkit.Run(t, cmd)
}

// kubectl runs kubectl with args and KUBECONFIG=kc.
func kubectl(t *testing.T, kc string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(kubectlBinary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
	return testkit.Run(t, cmd)
}

// start starts kubectl-reflect with args and KUBECONFIG=kc.
func start(t *testing.T, kc string, args ...string) *testkit.Proc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kc, "NO_COLOR=1", "XDG_RUNTIME_DIR="+runtimeDir(t), "XDG_STATE_HOME="+stateDir(t))
	return testkit.StartProc(t, cmd)
}

var runtimeDirs, stateDirs sync.Map // of *testing.T to string

// runtimeDir is the test's XDG_RUNTIME_DIR, where a daemon it serves
// writes its files and its get and watch find them.
func runtimeDir(t *testing.T) string { return testDir(t, &runtimeDirs) }

// stateDir is the test's XDG_STATE_HOME, where a daemon it serves with
// --record writes its histories and diff --at reads them.
func stateDir(t *testing.T) string { return testDir(t, &stateDirs) }

// testDir is the test's directory of dirs, made the first time.
func testDir(t *testing.T, dirs *sync.Map) string {
	if dir, ok := dirs.Load(t); ok {
		return dir.(string)
	}
	dir := t.TempDir()
	dirs.Store(t, dir)
	t.Cleanup(func() { dirs.Delete(t) })
	return dir
}

var lastColumn = regexp.MustCompile(`\S+$`)

// rows are a table's lines with runs of spaces made one and the last
// column (AGE, which ticks between two commands) blanked.
func rows(table string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		out = append(out, lastColumn.ReplaceAllString(strings.Join(strings.Fields(line), " "), "_"))
	}
	return out
}
