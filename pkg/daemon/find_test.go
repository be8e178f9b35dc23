package daemon

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestFindSocket: a daemon whose address does not answer is found at its
// unix socket (a stale file there first replaced by ListenSocket, the
// socket 0600), and its Config dials the socket; without the socket it is
// not found.
func TestFindSocket(t *testing.T) {
	runtime, err := os.MkdirTemp("", "kr") // short: a socket's path has a limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	user := &rest.Config{Host: "https://cluster.example:6443", BearerToken: "user"}
	lock, err := Acquire(dir, Identity(user))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if err := os.WriteFile(lock.Socket, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := lock.ListenSocket()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(lock.Socket); err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v %v, want a socket 0600", lock.Socket, err, fi.Mode())
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer daemon" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	srv.Listener = ln
	srv.StartTLS()
	defer srv.Close()

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close() // an address that answers nothing
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["d"] = &clientcmdapi.Cluster{Server: "https://" + closed.Addr().String(),
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}
	cfg.AuthInfos["d"] = &clientcmdapi.AuthInfo{Token: "daemon"}
	cfg.Contexts["d"] = &clientcmdapi.Context{Cluster: "d", AuthInfo: "d"}
	cfg.CurrentContext = "d"
	kubeconfig, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := lock.Publish(kubeconfig, Info{PID: 1, Server: "https://" + closed.Addr().String()}); err != nil {
		t.Fatal(err)
	}

	d, err := Find(context.Background(), user)
	if err != nil || d == nil || d.Config.Dial == nil {
		t.Fatalf("Find = %v, %v; want the daemon at its socket", d, err)
	}
	srv.Close()
	if d, err := Find(context.Background(), user); err != nil || d != nil {
		t.Errorf("Find with no daemon at the socket = %v, %v; want none", d, err)
	}
}
