package controlplane

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// cluster is shared by the tests below that do not need their own.
var cluster Shared

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

func clientFromKubeconfig(t *testing.T, path string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("load kubeconfig %s: %v", path, err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return cs
}

func TestAdminCreatesConfigMap(t *testing.T) {
	cp := cluster.Get(t)
	ctx := t.Context()
	for name, cs := range map[string]kubernetes.Interface{
		"AdminConfig":     kubernetes.NewForConfigOrDie(cp.AdminConfig()),
		"AdminKubeconfig": clientFromKubeconfig(t, cp.AdminKubeconfig()),
	} {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "admin-"},
			Data:       map[string]string{"via": name},
		}
		got, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s: create configmap: %v", name, err)
		}
		if got.Data["via"] != name || got.ResourceVersion == "" {
			t.Errorf("%s: created %+v", name, got)
		}
	}
}

func TestUnprivilegedUserIsForbidden(t *testing.T) {
	cp := cluster.Get(t)
	for name, cs := range map[string]kubernetes.Interface{
		"UserConfig":     kubernetes.NewForConfigOrDie(cp.UserConfig()),
		"UserKubeconfig": clientFromKubeconfig(t, cp.UserKubeconfig()),
	} {
		_, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("%s: list configmaps: got %v, want 403 Forbidden", name, err)
		}
	}
}

func TestCompactAndRestartExpireOldResourceVersions(t *testing.T) {
	cp := cluster.Get(t)
	ctx := t.Context()
	cms := kubernetes.NewForConfigOrDie(cp.AdminConfig()).CoreV1().ConfigMaps("default")

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "expire-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	oldRV := cm.ResourceVersion
	for i := range 3 {
		cm.Data = map[string]string{"i": fmt.Sprint(i)}
		if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update: %v", err)
		}
	}
	if err := watchFrom(ctx, cms, oldRV); err != nil {
		t.Fatalf("before compaction, watch from %s: %v", oldRV, err)
	}
	if _, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: oldRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact}); err != nil {
		t.Fatalf("before compaction, list at exactly %s: %v", oldRV, err)
	}

	server := cp.Server()
	if err := cp.CompactEtcd(ctx); err != nil {
		t.Fatalf("CompactEtcd: %v", err)
	}
	if err := cp.CompactEtcd(ctx); err != nil { // nothing new to compact: still fine
		t.Fatalf("second CompactEtcd: %v", err)
	}
	if err := cp.RestartAPIServer(ctx); err != nil {
		t.Fatalf("RestartAPIServer: %v", err)
	}
	if cp.Server() != server {
		t.Errorf("Server() changed across restart: %s, then %s", server, cp.Server())
	}

	err = watchFrom(ctx, cms, oldRV)
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("after CompactEtcd+RestartAPIServer, watch from %s: got %v, want 410 Gone", oldRV, err)
	}
	// An exact read at the old resourceVersion goes to etcd, which really has
	// forgotten it (a restart alone would empty the watch cache, not etcd).
	_, err = cms.List(ctx, metav1.ListOptions{ResourceVersion: oldRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("after CompactEtcd, list at exactly %s: got %v, want 410 Gone", oldRV, err)
	}
	// A relist gives a resourceVersion the restarted server can watch from
	// (cm's own may already be older than its watch cache).
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("relist: %v", err)
	}
	if err := watchFrom(ctx, cms, list.ResourceVersion); err != nil {
		t.Errorf("watch from the relisted resourceVersion %s: %v", list.ResourceVersion, err)
	}
}

// watchFrom watches configmaps from rv and returns the error the server
// reports, either as the response or as an ERROR event; nil if the watch
// delivers an object (or nothing) within a second.
func watchFrom(ctx context.Context, cms typedcorev1.ConfigMapInterface, rv string) error {
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		return err
	}
	defer w.Stop()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			return fmt.Errorf("watch closed without an event")
		}
		if ev.Type == watch.Error {
			return apierrors.FromObject(ev.Object)
		}
		return nil
	case <-time.After(time.Second):
		return nil
	}
}

func TestOutageAndStopLeaveNoProcesses(t *testing.T) {
	skipIfShort(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // Stop also ends the harness's goroutines
	cp := StartForTest(t, Options{})
	ctx := t.Context()
	cp.mu.Lock()
	procs := []*process{cp.etcd, cp.apiserver, cp.kcm}
	cp.mu.Unlock()
	for _, p := range procs {
		if p == nil || p.exited() || !processAlive(p.pid()) {
			t.Fatalf("component not running: %+v", p)
		}
	}
	client, err := cp.httpClient()
	if err != nil {
		t.Fatal(err)
	}
	readyz := httpCheck(client, cp.Server()+"/readyz", cp.creds.adminToken, "ok")

	apiserverPID := procs[1].pid()
	if err := cp.StopAPIServer(ctx); err != nil {
		t.Fatalf("StopAPIServer: %v", err)
	}
	if processAlive(apiserverPID) || groupAlive(apiserverPID) {
		t.Errorf("kube-apiserver (pid %d) still alive after StopAPIServer", apiserverPID)
	}
	if err := readyz(ctx); err == nil {
		t.Errorf("readyz answered during the outage")
	}
	if err := cp.StopAPIServer(ctx); err != nil {
		t.Errorf("second StopAPIServer: %v", err)
	}
	if err := cp.StartAPIServer(ctx); err != nil {
		t.Fatalf("StartAPIServer: %v", err)
	}
	if err := cp.StartAPIServer(ctx); err == nil {
		t.Errorf("StartAPIServer on a running kube-apiserver succeeded")
	}
	if err := readyz(ctx); err != nil {
		t.Errorf("readyz after StartAPIServer: %v", err)
	}
	cp.mu.Lock()
	procs[1] = cp.apiserver
	cp.mu.Unlock()
	client.CloseIdleConnections()

	if err := cp.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	for _, p := range procs {
		if !p.exited() || processAlive(p.pid()) || groupAlive(p.pid()) {
			t.Errorf("%s (pid %d) still alive after Stop", p.name, p.pid())
		}
	}
	if _, err := os.Stat(cp.Dir()); !os.IsNotExist(err) {
		t.Errorf("temp dir %s not removed: %v", cp.Dir(), err)
	}
	if err := cp.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if err := cp.StartAPIServer(ctx); err == nil {
		t.Errorf("StartAPIServer after Stop succeeded")
	}
	if _, err := http.Get(cp.EtcdURL() + "/health"); err == nil {
		t.Errorf("etcd still answers after Stop")
	}
}
