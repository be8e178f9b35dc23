package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
)

// Daemon is a running daemon of the caller's identity.
type Daemon struct {
	Info
	Files
	// Config reaches the daemon with its kubeconfig (TLS, token).
	Config *rest.Config
}

// Serves says whether the daemon caches gvr (every namespace).
func (d *Daemon) Serves(gvr schema.GroupVersionResource) bool {
	return slices.Contains(d.Resources, ResourceName(gvr))
}

// ResourceName is gvr as Info.Resources names it.
func ResourceName(gvr schema.GroupVersionResource) string {
	return gvr.Resource + "." + gvr.Version + "." + gvr.Group
}

// readyTimeout bounds the check that a daemon answers: a daemon that does
// not answer within it is not used.
const readyTimeout = time.Second

// Find returns the daemon that serves the identity of cfg, if one runs and
// answers /readyz (over its TLS, with its token) within a second; nil, nil
// when there is none. The daemon is reached at its unix socket when it
// answers there (its Config dials it), else at its address. Files of a
// daemon that does not answer are left to the next daemon of the identity,
// which replaces them.
func Find(ctx context.Context, cfg *rest.Config) (*Daemon, error) {
	dir, err := dirPath() // not made: a client has nothing to write there
	if err != nil {
		return nil, err
	}
	files := FilesOf(dir, Identity(cfg))
	info, err := ReadInfo(files)
	if err != nil {
		return nil, nil // none, or one that is starting
	}
	dcfg, err := clientcmd.BuildConfigFromFlags("", files.Kubeconfig)
	if err != nil {
		return nil, nil // stopped between the two reads
	}
	// The daemon repeats the API server's warnings (a deprecated version):
	// they are handled as cfg handles the server's.
	dcfg.WarningHandler, dcfg.WarningHandlerWithContext = cfg.WarningHandler, cfg.WarningHandlerWithContext
	if viaSocket := withSocket(dcfg, files.Socket); viaSocket != nil && ready(ctx, viaSocket) {
		return &Daemon{Info: info, Files: files, Config: viaSocket}, nil
	}
	if !ready(ctx, dcfg) {
		return nil, nil
	}
	return &Daemon{Info: info, Files: files, Config: dcfg}, nil
}

// withSocket is a copy of cfg that dials the unix socket at path instead
// of cfg's address (TLS and token the same), if there is a socket there;
// nil otherwise.
func withSocket(cfg *rest.Config, path string) *rest.Config {
	if fi, err := os.Stat(path); err != nil || fi.Mode().Type() != os.ModeSocket {
		return nil
	}
	c := rest.CopyConfig(cfg)
	var d net.Dialer
	c.Dial = func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "unix", path) }
	return c
}

// ready says whether the daemon at cfg answers /readyz with 200.
func ready(ctx context.Context, cfg *rest.Config) bool {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return false
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// String names the daemon for messages.
func (d *Daemon) String() string { return fmt.Sprintf("pid %d at %s", d.PID, d.Server) }

// HistoryOf is the history a query of cfg's identity reads
// (recording.Locate): the one its running daemon records to (a file, or a
// PostgreSQL URL without its password), else the default file
// (recording.DefaultPath).
func HistoryOf(cfg *rest.Config) (string, error) {
	if dir, err := dirPath(); err == nil {
		if info, err := Running(FilesOf(dir, Identity(cfg))); err == nil && info.History != "" {
			return info.History, nil
		}
	}
	return recording.DefaultPath(Identity(cfg))
}
