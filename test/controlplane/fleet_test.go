package controlplane

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestFleet: two clusters on one etcd are apart (an object of one is not
// in the other), each reached through its own context of the fleet's
// kubeconfig, with its own credentials; a revoked token is refused.
func TestFleet(t *testing.T) {
	skipIfShort(t)
	f, err := StartFleet(t.Context(), []string{"east", "west"}, Options{NoControllerManager: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Stop(); err != nil {
			t.Error(err)
		}
	})
	client := func(context string) kubernetes.Interface {
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: f.Kubeconfig()}, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		return kubernetes.NewForConfigOrDie(cfg)
	}
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "only-east", Namespace: "default"}}
	if _, err := client("east").CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client("west").CoreV1().ConfigMaps("default").Get(ctx, "only-east", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("west's only-east: %v, want NotFound", err)
	}
	if f.Cluster("east").Server() == f.Cluster("west").Server() || f.Cluster("west").EtcdURL() != f.Cluster("east").EtcdURL() {
		t.Errorf("servers %s and %s on etcd %s and %s", f.Cluster("east").Server(), f.Cluster("west").Server(),
			f.Cluster("east").EtcdURL(), f.Cluster("west").EtcdURL())
	}
	west := f.Cluster("west")
	user := kubernetes.NewForConfigOrDie(west.UserConfig())
	if _, err := user.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the unprivileged user before revocation: %v, want Forbidden", err)
	}
	if err := west.RevokeUserToken(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := user.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("the unprivileged user after revocation: %v, want Unauthorized", err)
	}
}
