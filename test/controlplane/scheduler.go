package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// schedulerConfig is kube-scheduler's configuration file: the admin's
// kubeconfig (the --kubeconfig flag is deprecated), a client that may send
// 200 requests a second (not 50: each pod costs a binding and an Event), and
// no leader election, like kube-controller-manager here.
const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: 200
  burst: 400
leaderElection:
  leaderElect: false
`

// writeSchedulerConfig writes kube-scheduler's configuration file.
func (c *ControlPlane) writeSchedulerConfig() error {
	c.schedulerConfig = filepath.Join(c.dir, "kube-scheduler.yaml")
	body := fmt.Sprintf(schedulerConfig, c.adminKubeconfig)
	if err := os.WriteFile(c.schedulerConfig, []byte(body), 0o600); err != nil {
		return fmt.Errorf("write kube-scheduler's configuration: %w", err)
	}
	return nil
}

// schedulerArgs are kube-scheduler's flags: its configuration, and a serving
// port on loopback with kube-apiserver's certificate (valid for 127.0.0.1),
// for /readyz, which anyone may read.
func (c *ControlPlane) schedulerArgs() []string {
	return []string{
		"--config=" + c.schedulerConfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.schedulerPort),
		"--tls-cert-file=" + c.creds.certFile,
		"--tls-private-key-file=" + c.creds.keyFile,
	}
}

// schedulerReady waits until kube-scheduler's /readyz answers ok: its
// informers have synced, so it schedules what is pending.
func (c *ControlPlane) schedulerReady(ctx context.Context) error {
	client, err := c.httpClient()
	if err != nil {
		return err
	}
	defer client.CloseIdleConnections()
	url := fmt.Sprintf("https://127.0.0.1:%d/readyz", c.schedulerPort)
	return waitReady(ctx, c.scheduler, c.opts.ReadyTimeout, httpCheck(client, url, "", "ok"))
}
