package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
)

// apiserverArgs are kube-apiserver's flags. The port, etcd and credentials
// never change, so a restarted kube-apiserver serves the same URL and data.
func (c *ControlPlane) apiserverArgs() []string {
	args := []string{
		"--etcd-servers=" + c.EtcdURL(),
		"--secure-port=" + strconv.Itoa(c.apiserverPort),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none", // else it refuses a loopback advertise address
		"--cert-dir=" + filepath.Join(c.dir, "certs"),
		"--tls-cert-file=" + c.creds.certFile,
		"--tls-private-key-file=" + c.creds.keyFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + c.creds.saPub,
		"--service-account-signing-key-file=" + c.creds.saKey,
		"--token-auth-file=" + c.creds.tokenFile,
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		// No controller creates service accounts, and pods would need one.
		"--disable-admission-plugins=ServiceAccount",
	}
	if c.opts.EtcdPrefix != "" {
		args = append(args, "--etcd-prefix="+c.opts.EtcdPrefix)
	}
	return append(args, c.opts.ExtraAPIServerFlags...)
}

// startAPIServerLocked starts kube-apiserver and waits until /readyz answers
// 200 and the default namespace exists. c.mu must be held.
func (c *ControlPlane) startAPIServerLocked(ctx context.Context) error {
	p, err := c.startProcess("kube-apiserver", c.bins.APIServer, c.apiserverArgs(), nil)
	if err != nil {
		return err
	}
	c.apiserver = p
	client, err := c.httpClient()
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	token := c.creds.adminToken
	if err := waitReady(ctx, p, c.opts.ReadyTimeout, httpCheck(client, c.server+"/readyz", token, "ok")); err != nil {
		return err
	}
	return waitReady(ctx, p, c.opts.ReadyTimeout,
		httpCheck(client, c.server+"/api/v1/namespaces/default", token, `"name":"default"`))
}

// httpClient trusts the control plane's CA.
func (c *ControlPlane) httpClient() (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.creds.caPEM) {
		return nil, errors.New("bad CA certificate")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &http.Client{Transport: tr}, nil
}

// StopAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after the grace
// period or when ctx ends) and leaves etcd and kube-controller-manager
// running: an outage. Server() keeps its value. Stopping a stopped
// kube-apiserver does nothing.
func (c *ControlPlane) StopAPIServer(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errStopped
	}
	if c.apiserver != nil {
		c.apiserver.stop(ctx, c.opts.StopGracePeriod)
	}
	return nil
}

// StartAPIServer starts kube-apiserver again, on the same port with the same
// etcd and credentials, and waits until it is ready. It fails if
// kube-apiserver is running.
func (c *ControlPlane) StartAPIServer(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errStopped
	}
	if c.apiserver != nil && !c.apiserver.exited() {
		return errors.New("kube-apiserver is already running")
	}
	if err := c.startAPIServerLocked(ctx); err != nil {
		c.apiserver.stop(ctx, c.opts.StopGracePeriod)
		return fmt.Errorf("restart kube-apiserver: %w", err)
	}
	return nil
}

// RestartAPIServer stops and starts kube-apiserver. Its watch cache starts
// empty, so together with CompactEtcd it makes watches from older
// resourceVersions fail with 410 Gone.
func (c *ControlPlane) RestartAPIServer(ctx context.Context) error {
	if err := c.StopAPIServer(ctx); err != nil {
		return err
	}
	return c.StartAPIServer(ctx)
}

// controllerManagerArgs are kube-controller-manager's flags: no leader
// election, no serving port, admin credentials. With nodes and a scheduler
// its client may send 200 requests a second, not 20: at 20, a Deployment of
// 500 pods took 25s to create them; kube-apiserver's own limits still apply.
func (c *ControlPlane) controllerManagerArgs() []string {
	args := []string{
		"--kubeconfig=" + c.adminKubeconfig,
		"--controllers=" + strings.Join(c.opts.Controllers, ","),
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=0",
	}
	if c.opts.Scheduler || c.opts.Kwok != nil {
		args = append(args, "--kube-api-qps=200", "--kube-api-burst=400")
	}
	return args
}
