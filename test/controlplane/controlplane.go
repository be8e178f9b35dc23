package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"k8s.io/client-go/rest"
)

var errStopped = errors.New("control plane is stopped")

// ControlPlane is a running etcd, kube-apiserver and kube-controller-manager.
// Its methods are safe for concurrent use; outage methods (StopAPIServer,
// StartAPIServer, RestartAPIServer) and Stop run one at a time.
type ControlPlane struct {
	opts   Options
	bins   Binaries
	dir    string // temporary directory holding everything below
	logDir string
	creds  credentials

	etcdClientPort, etcdPeerPort, apiserverPort int
	server                                      string
	adminKubeconfig, userKubeconfig             string

	logOut *lockedWriter // Options.LogOutput, shared by all components; nil if unset
	sp     *spawner

	mu                   sync.Mutex // guards the processes and stopped
	etcd, apiserver, kcm *process
	stopped              bool
}

// Start builds the binaries if needed (see Build), then starts etcd,
// kube-apiserver and kube-controller-manager on free loopback ports with
// their data in a new temporary directory. It returns once kube-apiserver
// answers /readyz and the default namespace exists; kube-controller-manager
// comes up in the background.
//
// ctx bounds the build and the startup only: the processes run until Stop,
// which the caller must call (StartForTest and Shared do).
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	opts = opts.withDefaults()
	bins := opts.Binaries
	if bins.Dir == "" {
		var err error
		if bins, err = Build(ctx, opts.Build); err != nil {
			return nil, fmt.Errorf("build control plane: %w", err)
		}
	}
	var err error
	for range 3 { // a port found free may be taken before the component binds it
		var c *ControlPlane
		if c, err = start(ctx, opts, bins); err == nil {
			return c, nil
		}
		if !errors.Is(err, errPortInUse) {
			break
		}
	}
	return nil, fmt.Errorf("start control plane: %w", err)
}

func start(ctx context.Context, opts Options, bins Binaries) (_ *ControlPlane, err error) {
	dir, err := os.MkdirTemp("", "kubectl-reflect-controlplane-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	c := &ControlPlane{opts: opts, bins: bins, dir: dir, logDir: filepath.Join(dir, "logs"), sp: newSpawner()}
	if opts.LogOutput != nil {
		c.logOut = &lockedWriter{w: opts.LogOutput}
	}
	defer func() { // c, not a named result: every failure returns nil
		if err != nil {
			_ = c.Stop()
		}
	}()
	if err := c.prepare(); err != nil {
		return nil, err
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if opts.SharedEtcd == "" {
		if err := c.startEtcd(ctx); err != nil {
			return nil, err
		}
	}
	if err := c.startAPIServerLocked(ctx); err != nil {
		return nil, err
	}
	if !opts.NoControllerManager {
		// Started once kube-apiserver is ready: it gives up if the API server
		// is not healthy within 10s of its start.
		if c.kcm, err = c.startProcess("kube-controller-manager", bins.ControllerManager, c.controllerManagerArgs()); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// prepare picks ports and writes credentials and kubeconfigs.
func (c *ControlPlane) prepare() error {
	for _, d := range []string{c.logDir, filepath.Join(c.dir, "certs"), filepath.Join(c.dir, "etcd")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	c.etcdClientPort, c.etcdPeerPort, c.apiserverPort = ports[0], ports[1], ports[2]
	c.server = fmt.Sprintf("https://127.0.0.1:%d", c.apiserverPort)

	if c.creds, err = writeCredentials(filepath.Join(c.dir, "certs")); err != nil {
		return err
	}
	c.adminKubeconfig = filepath.Join(c.dir, "admin.kubeconfig")
	if err := writeKubeconfig(c.adminKubeconfig, c.server, c.creds.caPEM, AdminUser, c.creds.adminToken); err != nil {
		return err
	}
	c.userKubeconfig = filepath.Join(c.dir, "user.kubeconfig")
	return writeKubeconfig(c.userKubeconfig, c.server, c.creds.caPEM, UnprivilegedUser, c.creds.userToken)
}

// startProcess starts one component with its log in the log directory.
func (c *ControlPlane) startProcess(name, path string, args []string) (*process, error) {
	var extra io.Writer
	if c.logOut != nil {
		extra = newPrefixWriter(c.logOut, "["+name+"] ")
	}
	return startProcess(c.sp, name, path, args, c.dir, c.logDir, extra)
}

// Stop stops every component (SIGTERM, then SIGKILL after the grace period),
// waits for them, and removes the temporary directory unless KeepDir is set.
// It is idempotent; later calls return nil.
func (c *ControlPlane) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	ctx, grace := context.Background(), c.opts.StopGracePeriod
	var wg sync.WaitGroup
	for _, p := range []*process{c.kcm, c.apiserver} {
		if p != nil {
			wg.Go(func() { p.stop(ctx, grace) })
		}
	}
	wg.Wait()
	if c.etcd != nil {
		c.etcd.stop(ctx, grace)
	}
	c.sp.close()
	if !c.opts.KeepDir {
		if err := os.RemoveAll(c.dir); err != nil {
			return fmt.Errorf("remove control plane dir: %w", err)
		}
	}
	return nil
}

// Server is kube-apiserver's URL, https://127.0.0.1:PORT. It survives
// RestartAPIServer.
func (c *ControlPlane) Server() string { return c.server }

// AdminKubeconfig is the path of a kubeconfig for the admin (system:masters).
func (c *ControlPlane) AdminKubeconfig() string { return c.adminKubeconfig }

// UserKubeconfig is the path of a kubeconfig for UnprivilegedUser.
func (c *ControlPlane) UserKubeconfig() string { return c.userKubeconfig }

// AdminConfig returns a new client configuration for the admin.
func (c *ControlPlane) AdminConfig() *rest.Config {
	return restConfig(c.server, c.creds.caPEM, c.creds.adminToken)
}

// UserConfig returns a new client configuration for UnprivilegedUser.
func (c *ControlPlane) UserConfig() *rest.Config {
	return restConfig(c.server, c.creds.caPEM, c.creds.userToken)
}

// Dir is the temporary directory with the data, certificates, kubeconfigs
// and logs. Stop removes it unless Options.KeepDir is set.
func (c *ControlPlane) Dir() string { return c.dir }

// LogDir holds one log file per component (etcd.log, kube-apiserver.log,
// kube-controller-manager.log); restarts append to the same file.
func (c *ControlPlane) LogDir() string { return c.logDir }

// Kubectl is the path of the kubectl built at the control plane's version
// (see Build): the kubectl-parity tests run it, not the machine's.
func (c *ControlPlane) Kubectl() string { return c.bins.Kubectl }
