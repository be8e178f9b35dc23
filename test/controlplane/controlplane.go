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

// ControlPlane is a running etcd, kube-apiserver and kube-controller-manager,
// and kube-scheduler and kwok if asked for. Its methods are safe for
// concurrent use; outage methods (StopAPIServer, StartAPIServer,
// RestartAPIServer) and Stop run one at a time.
type ControlPlane struct {
	opts   Options
	bins   Binaries
	dir    string // temporary directory holding everything below
	logDir string
	creds  credentials

	etcdClientPort, etcdPeerPort, apiserverPort int
	schedulerPort                               int // 0 without kube-scheduler
	server                                      string
	adminKubeconfig, userKubeconfig             string
	schedulerConfig                             string

	logOut *lockedWriter // Options.LogOutput, shared by all components; nil if unset
	sp     *spawner

	mu                   sync.Mutex // guards the processes and stopped
	etcd, apiserver, kcm *process
	scheduler, kwok      *process
	stopped              bool

	nodesMu sync.Mutex // held by AddNodes throughout
	nodes   []string   // kwok's nodes, in the order created
}

// Start builds the binaries if needed (see Build), then starts etcd,
// kube-apiserver and kube-controller-manager on free loopback ports with
// their data in a new temporary directory. It returns once kube-apiserver
// answers /readyz and the default namespace exists; kube-controller-manager
// comes up in the background.
//
// With Options.Scheduler it also starts kube-scheduler once kube-apiserver
// is ready, and waits until the scheduler's /readyz answers. With
// Options.Kwok it starts kwok once kube-apiserver is ready, creates
// Kwok.Nodes fake nodes (see AddNodes) and waits, by watching, until each is
// Ready and has its Lease.
//
// ctx bounds the build and the startup only: the processes run until Stop,
// which the caller must call (StartForTest and Shared do).
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	bins, err := opts.binaries(ctx)
	if err != nil {
		return nil, fmt.Errorf("build control plane: %w", err)
	}
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
	if err := c.startComponents(ctx); err != nil {
		return nil, err
	}
	// kube-scheduler syncs its caches while kwok's nodes come up.
	if opts.Kwok != nil && opts.Kwok.Nodes > 0 {
		if _, err := c.AddNodes(ctx, opts.Kwok.Nodes); err != nil {
			return nil, err
		}
	}
	if opts.Scheduler {
		if err := c.schedulerReady(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// startComponents starts etcd and kube-apiserver and waits until they are
// ready, then starts the components that are clients of kube-apiserver.
func (c *ControlPlane) startComponents(ctx context.Context) (err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opts.SharedEtcd == "" {
		if err := c.startEtcd(ctx); err != nil {
			return err
		}
	}
	if err := c.startAPIServerLocked(ctx); err != nil {
		return err
	}
	if !c.opts.NoControllerManager {
		// Started once kube-apiserver is ready: it gives up if the API server
		// is not healthy within 10s of its start.
		if c.kcm, err = c.startProcess("kube-controller-manager", c.bins.ControllerManager, c.controllerManagerArgs(), nil); err != nil {
			return err
		}
	}
	if c.opts.Scheduler {
		if c.scheduler, err = c.startProcess("kube-scheduler", c.bins.Scheduler, c.schedulerArgs(), nil); err != nil {
			return err
		}
	}
	if c.opts.Kwok != nil {
		if c.kwok, err = c.startProcess("kwok", c.bins.Kwok, c.kwokArgs(), c.kwokEnv()); err != nil {
			return err
		}
	}
	return nil
}

// prepare picks ports and writes credentials and kubeconfigs.
func (c *ControlPlane) prepare() error {
	for _, d := range []string{c.logDir, filepath.Join(c.dir, "certs"), filepath.Join(c.dir, "etcd")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	n := 3
	if c.opts.Scheduler {
		n = 4
	}
	ports, err := freePorts(n)
	if err != nil {
		return err
	}
	c.etcdClientPort, c.etcdPeerPort, c.apiserverPort = ports[0], ports[1], ports[2]
	if c.opts.Scheduler {
		c.schedulerPort = ports[3]
	}
	c.server = fmt.Sprintf("https://127.0.0.1:%d", c.apiserverPort)

	if c.creds, err = writeCredentials(filepath.Join(c.dir, "certs")); err != nil {
		return err
	}
	c.adminKubeconfig = filepath.Join(c.dir, "admin.kubeconfig")
	if err := writeKubeconfig(c.adminKubeconfig, c.server, c.creds.caPEM, AdminUser, c.creds.adminToken); err != nil {
		return err
	}
	c.userKubeconfig = filepath.Join(c.dir, "user.kubeconfig")
	if err := writeKubeconfig(c.userKubeconfig, c.server, c.creds.caPEM, UnprivilegedUser, c.creds.userToken); err != nil {
		return err
	}
	if c.opts.Scheduler {
		return c.writeSchedulerConfig()
	}
	return nil
}

// startProcess starts one component with its log in the log directory and
// env added to the harness's environment.
func (c *ControlPlane) startProcess(name, path string, args, env []string) (*process, error) {
	var extra io.Writer
	if c.logOut != nil {
		extra = newPrefixWriter(c.logOut, "["+name+"] ")
	}
	return startProcess(c.sp, name, path, args, env, c.dir, c.logDir, extra)
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
	for _, p := range []*process{c.kwok, c.scheduler, c.kcm, c.apiserver} {
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

// harnessConfig is the admin's configuration without client-side rate
// limiting, for the harness's own requests (a hundred nodes at client-go's
// default 5 per second would take 20s).
func (c *ControlPlane) harnessConfig() *rest.Config {
	cfg := c.AdminConfig()
	cfg.QPS, cfg.Burst = 1000, 1000
	return cfg
}

// UserConfig returns a new client configuration for UnprivilegedUser.
func (c *ControlPlane) UserConfig() *rest.Config {
	return restConfig(c.server, c.creds.caPEM, c.creds.userToken)
}

// Dir is the temporary directory with the data, certificates, kubeconfigs
// and logs. Stop removes it unless Options.KeepDir is set.
func (c *ControlPlane) Dir() string { return c.dir }

// LogDir holds one log file per component (etcd.log, kube-apiserver.log,
// kube-controller-manager.log, kube-scheduler.log, kwok.log); restarts
// append to the same file.
func (c *ControlPlane) LogDir() string { return c.logDir }

// Kubectl is the path of the kubectl built at the control plane's version
// (see Build): the kubectl-parity tests run it, not the machine's.
func (c *ControlPlane) Kubectl() string { return c.bins.Kubectl }
