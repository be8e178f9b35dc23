package controllers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// countingProxy is a plain-HTTP reverse proxy to the API server, with the
// admin credentials, that counts the LISTs and WATCHes of one resource
// across all namespaces on the way: what the client behind it asks the
// server, on the wire.
type countingProxy struct {
	srv  *httptest.Server
	path string // e.g. /api/v1/configmaps

	mu             sync.Mutex
	lists, watches int
}

func newCountingProxy(t *testing.T, cfg *rest.Config, path string) *countingProxy {
	t.Helper()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{path: path}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport:     rt,
		FlushInterval: -1, // a watch streams
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == p.path {
			p.mu.Lock()
			if q := r.URL.Query().Get("watch"); q == "1" || q == "true" {
				p.watches++
			} else {
				p.lists++
			}
			p.mu.Unlock()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *countingProxy) counts() (lists, watches int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lists, p.watches
}

// kubeconfig writes a kubeconfig that talks to the proxy.
func (p *countingProxy) kubeconfig(t *testing.T) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: p.srv.URL}
	cfg.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy", Namespace: "default"}
	cfg.CurrentContext = "proxy"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMirrorSharesConfigMapWatch: configmap-generator and mirror in one
// process both read ConfigMaps in all namespaces (the generator owns them,
// the mirror copies them) and share one reflector: exactly one LIST and
// one WATCH of configmaps on the wire, while both work (a generator's
// ConfigMap is created, a source's copy appears).
func TestMirrorSharesConfigMapWatch(t *testing.T) {
	cp := cluster.Get(t)
	cs := unthrottled(t, cp)
	installCRD(t, cp)
	proxy := newCountingProxy(t, cp.AdminConfig(), "/api/v1/configmaps")
	p := start(t, cp, "run-controller", "configmap-generator,mirror", "-A", "--kubeconfig", proxy.kubeconfig(t))
	ready := map[string]bool{}
	for len(ready) < 3 { // configmap-generator, mirror-secrets, mirror-configmaps
		ready[p.WaitErrLine(`^\S+: ready$`)] = true
	}

	w := newMirrorWorld(t, cs, mirrorKinds[1])
	src, dst := w.ns("src"), w.ns("dst")
	gen := "apiVersion: kubectl-reflect.io/v1alpha1\nkind: ConfigMapGenerator\nmetadata:\n  name: app\nspec:\n  data:\n    a: \"1\"\n"
	if out, errOut, code := kubectlStdin(t, cp, gen, "apply", "-n", src, "-f", "-"); code != 0 {
		t.Fatalf("kubectl apply of a generator: exit %d\n%s%s", code, out, errOut)
	}
	eventually(t, "the generator's ConfigMap", func(ctx context.Context) (bool, error) {
		cms, err := cs.CoreV1().ConfigMaps(src).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, cm := range cms.Items {
			for _, ref := range cm.OwnerReferences {
				if ref.Kind == "ConfigMapGenerator" && ref.Name == "app" {
					return true, nil
				}
			}
		}
		return false, nil
	})
	w.create(src, "shared", map[string]string{annAllowed: "true", annAutoEnabled: "true", annAutoNS: w.prefix + "dst"}, map[string]string{"k": "v"})
	w.copyOf(dst, "shared", src+"/shared", true, map[string]string{"k": "v"})

	lists, watches := proxy.counts()
	if lists != 1 || watches != 1 {
		t.Errorf("configmaps in all namespaces: %d LISTs and %d WATCHes on the wire, want 1 and 1", lists, watches)
	}
}
