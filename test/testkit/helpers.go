package testkit

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

var nonDNS = regexp.MustCompile(`[^a-z0-9]+`)

// Namespace creates a namespace named after the test and deletes it when
// the test ends.
func Namespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	name := strings.Trim(nonDNS.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 40 {
		name = strings.Trim(name[:40], "-")
	}
	name = fmt.Sprintf("%s-%d", name, time.Now().UnixNano()%100000)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// Admin is a clientset with cp's admin credentials, for a test's own
// requests: without client-go's default client-side limit (5 a second),
// at which a test that makes a thousand objects waited minutes.
func Admin(t *testing.T, cp *controlplane.ControlPlane) kubernetes.Interface {
	t.Helper()
	cfg := cp.AdminConfig()
	cfg.QPS, cfg.Burst = 1000, 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// SyncBuffer is a bytes.Buffer safe for one writer (a process's output)
// and concurrent readers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
