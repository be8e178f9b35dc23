package controllers

import (
	"context"
	"regexp"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRunControllerLeaderElection: of two run-controller --leader-elect,
// only the holder of the Lease reconciles; when it is killed (no release),
// the other takes the Lease once it expires and reconciles.
func TestRunControllerLeaderElection(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	installCRD(t, cp)
	args := []string{"run-controller", "configmap-generator", "-n", ns, "--leader-elect"}
	lease := regexp.QuoteMeta(ns + "/kubectl-reflect-configmap-generator")
	a := start(t, cp, args...)
	a.WaitErrLine(`^leading: Lease ` + lease + `$`)
	a.WaitErrLine(`^configmap-generator: ready$`)
	b := start(t, cp, args...)
	b.WaitErrLine(`^waiting to lead: Lease ` + lease + `$`)

	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n")
	a.WaitErrLine(reconciled(ns, "app", "ok"))
	waitConfigMap(t, cs, ns, "app", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })
	l, err := cs.CoordinationV1().Leases(ns).Get(context.Background(), "kubectl-reflect-configmap-generator", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		t.Fatalf("lease %+v: %v", l, err)
	}

	a.Signal(syscall.SIGKILL)
	a.Wait()
	if strings.Contains(b.Stderr.String(), "configmap-generator "+ns+"/") {
		t.Errorf("the standby reconciled while the leader ran:\n%s", b.Stderr.String())
	}
	b.WaitErrLine(`^leading: Lease ` + lease + `$`)
	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"2\"\n")
	b.WaitErrLine(reconciled(ns, "app", "ok"))
	waitConfigMap(t, cs, ns, "app", "updated by the new leader", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "2") })
}
