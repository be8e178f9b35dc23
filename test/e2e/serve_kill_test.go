package e2e

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"sync"
	"syscall"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestServeGetFallsBack: the daemon killed with SIGKILL under a one-shot
// get, once get has found it (its /readyz answered) and before get's
// first request after that, and under get's LIST: get reads the API server
// instead and prints exactly what it prints with --no-daemon.
func TestServeGetFallsBack(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", map[string]string{"app": "x"}, "k", "1")
	createCM(t, cs, ns, "b", nil, "k", "2")
	for _, tt := range []struct{ name, killAt string }{
		{"between finding the daemon and using it", `^/(api|apis)([/?]|$)`},
		{"under the LIST", `/namespaces/` + ns + `/configmaps`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			d := startServeIn(t, dir, cp.AdminKubeconfig(), "configmaps")
			d.caughtUp(t, cs)
			killed := killDaemonAt(t, d, regexp.MustCompile(tt.killAt))
			args := []string{"get", "cm", "-n", ns, "--kubeconfig", cp.AdminKubeconfig()}
			got := runIn(t, dir, args...)
			select {
			case <-killed:
			default:
				t.Fatalf("get never asked the daemon for %s: it did not use it", tt.killAt)
			}
			assertAsNoDaemon(t, dir, "with the daemon killed under it", got, args...)
		})
	}
}

// killDaemonAt puts d behind a TLS proxy, which it writes into d's
// kubeconfig (where its clients find it): the first request whose path and
// query match killAt kills d with SIGKILL, and that request and every one
// after it are broken off as a dead daemon's are (the proxy stops
// listening). The channel is closed once d is dead.
func killDaemonAt(t *testing.T, d *daemon, killAt *regexp.Regexp) <-chan struct{} {
	t.Helper()
	target, err := url.Parse(d.config.Host)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(d.config)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Del("Authorization") // the daemon's, added by rt
		},
		Transport:     rt,
		FlushInterval: -1,
	}
	killed := make(chan struct{})
	var once sync.Once
	var srv *httptest.Server
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-killed:
			panic(http.ErrAbortHandler)
		default:
		}
		if !killAt.MatchString(r.URL.RequestURI()) {
			proxy.ServeHTTP(w, r)
			return
		}
		once.Do(func() {
			_ = d.Cmd.Process.Signal(syscall.SIGKILL)
			<-d.Done()
			srv.Listener.Close()
			close(killed)
		})
		panic(http.ErrAbortHandler)
	}))
	t.Cleanup(srv.Close)

	kc, err := clientcmd.LoadFromFile(d.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = srv.URL
		c.CertificateAuthority = ""
		c.CertificateAuthorityData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	}
	if err := clientcmd.WriteToFile(*kc, d.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return killed
}
