package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "controlplane",
		Short:         "Build and run a local etcd + kube-apiserver + kube-controller-manager (+ kube-scheduler and kwok)",
		SilenceErrors: true, // main prints the error once
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newBuildCommand(stdout, stderr), newUpCommand(stdout, stderr))
	return root
}

// buildOptions are the flags of "build" and the build part of "up".
type buildOptions struct {
	toolsDir string
	cacheDir string
	optional bool // build: kube-scheduler and kwok too
}

func (o *buildOptions) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.toolsDir, "tools-dir", "", "the tools module (default: test/controlplane/tools next to the harness source)")
	cmd.Flags().StringVar(&o.cacheDir, "cache-dir", "", "base directory of the binary cache (default: $"+controlplane.CacheEnv+" or the user cache dir)")
}

func (o *buildOptions) options(progress io.Writer) controlplane.BuildOptions {
	return controlplane.BuildOptions{ToolsDir: o.toolsDir, CacheDir: o.cacheDir, Progress: progress,
		Scheduler: o.optional, Kwok: o.optional}
}

func newBuildCommand(stdout, stderr io.Writer) *cobra.Command {
	var o buildOptions
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build (or find in the cache) the control-plane binaries, kube-scheduler and kwok included, and print the core set's directory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SilenceUsage = true
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			bins, err := controlplane.Build(ctx, o.options(stderr))
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, bins.Dir)
			return nil
		},
	}
	o.bind(cmd)
	cmd.Flags().BoolVar(&o.optional, "optional", true, "also build kube-scheduler and kwok (what Options.Scheduler and Options.Kwok need)")
	return cmd
}

// demoControllers are the controllers "up" runs by default: the tests'
// default (garbage collection, namespace deletion) and what takes a
// Deployment to its ReplicaSet and Pods. The Pods stay Pending: there is no
// scheduler and no kubelet.
var demoControllers = []string{"garbage-collector-controller", "namespace-controller", "deployment-controller", "replicaset-controller"}

// upOptions are the flags of "up".
type upOptions struct {
	build           buildOptions
	kubeconfigOut   string
	keepDir         bool
	noCtrlManager   bool
	controllers     []string
	logs            bool
	stopGracePeriod time.Duration
	clusters        []string
	scheduler       bool
	kwokNodes       int
	controllersSet  bool // --controllers was given
}

func newUpCommand(stdout, stderr io.Writer) *cobra.Command {
	var o upOptions
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a control plane, print `export KUBECONFIG=...`, and run until SIGINT or SIGTERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.controllersSet = cmd.Flags().Changed("controllers")
			if err := o.validate(); err != nil {
				return err
			}
			cmd.SilenceUsage = true
			return o.run(cmd.Context(), stdout, stderr)
		},
	}
	o.build.bind(cmd)
	f := cmd.Flags()
	f.StringVar(&o.kubeconfigOut, "kubeconfig-out", "", "also write the admin kubeconfig to `FILE` (default: use the one in the temp dir)")
	f.BoolVar(&o.keepDir, "keep-dir", false, "keep the temp dir (data, logs, kubeconfigs) after shutdown")
	f.BoolVar(&o.noCtrlManager, "no-controller-manager", false, "do not run kube-controller-manager")
	f.StringSliceVar(&o.controllers, "controllers", demoControllers, "kube-controller-manager's controllers")
	f.BoolVar(&o.logs, "logs", false, "copy component logs to stderr")
	f.StringSliceVar(&o.clusters, "clusters", nil, "start a fleet of clusters of these names on one etcd, the kubeconfig a context each (see controlplane.StartFleet)")
	f.BoolVar(&o.scheduler, "scheduler", false, "run kube-scheduler")
	f.IntVar(&o.kwokNodes, "kwok-nodes", 0, "run kwok with `N` fake nodes, where pods run (with --scheduler, a cluster's shape; the default --controllers are then controlplane.ClusterControllers)")
	f.DurationVar(&o.stopGracePeriod, "stop-grace-period", 5*time.Second, "time each component gets after SIGTERM before SIGKILL")
	return cmd
}

func (o *upOptions) validate() error {
	if o.stopGracePeriod <= 0 {
		return errors.New("--stop-grace-period must be positive")
	}
	if !o.noCtrlManager && len(o.controllers) == 0 {
		return errors.New("--controllers must name at least one controller")
	}
	if o.kwokNodes < 0 {
		return errors.New("--kwok-nodes must not be negative")
	}
	return nil
}

func (o *upOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := controlplane.Options{
		Build:               o.build.options(stderr),
		KeepDir:             o.keepDir,
		NoControllerManager: o.noCtrlManager,
		Controllers:         o.controllers,
		StopGracePeriod:     o.stopGracePeriod,
		Scheduler:           o.scheduler,
	}
	if o.kwokNodes > 0 {
		opts.Kwok = &controlplane.KwokOptions{Nodes: o.kwokNodes}
	}
	if (o.scheduler || o.kwokNodes > 0) && !o.controllersSet {
		opts.Controllers = nil // controlplane.ClusterControllers
	}
	if o.logs {
		opts.LogOutput = stderr
	}
	began := time.Now()
	cp, stopAll, source, err := o.start(ctx, opts)
	if err != nil {
		return err
	}
	kubeconfig, err := o.writeKubeconfig(source)
	if err != nil {
		return errors.Join(err, stopAll())
	}
	fmt.Fprintf(stderr, "control plane ready in %s at %s (logs in %s)\n",
		time.Since(began).Round(10*time.Millisecond), cp.Server(), cp.LogDir())
	fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", kubeconfig)

	<-ctx.Done()
	fmt.Fprintln(stderr, "shutting down")
	if err := stopAll(); err != nil {
		return err
	}
	if o.keepDir {
		fmt.Fprintf(stderr, "kept %s\n", cp.Dir())
	}
	return nil
}

// start starts one control plane, or the fleet --clusters names, and
// returns the first, what stops everything, and the kubeconfig to use.
func (o *upOptions) start(ctx context.Context, opts controlplane.Options) (*controlplane.ControlPlane, func() error, string, error) {
	if len(o.clusters) == 0 {
		cp, err := controlplane.Start(ctx, opts)
		if err != nil {
			return nil, nil, "", err
		}
		return cp, cp.Stop, cp.AdminKubeconfig(), nil
	}
	f, err := controlplane.StartFleet(ctx, o.clusters, opts)
	if err != nil {
		return nil, nil, "", err
	}
	return f.Cluster(o.clusters[0]), f.Stop, f.Kubeconfig(), nil
}

// writeKubeconfig copies the admin kubeconfig to --kubeconfig-out, if set,
// and returns the path to use. The file appears whole (written beside it,
// then renamed), so a script may take its existence as "ready".
func (o *upOptions) writeKubeconfig(source string) (string, error) {
	if o.kubeconfigOut == "" {
		return source, nil
	}
	b, err := os.ReadFile(source)
	if err != nil {
		return "", fmt.Errorf("read admin kubeconfig: %w", err)
	}
	path, err := filepath.Abs(o.kubeconfigOut)
	if err != nil {
		return "", fmt.Errorf("--kubeconfig-out: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return "", fmt.Errorf("write --kubeconfig-out: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("write --kubeconfig-out: %w", err)
	}
	return path, nil
}
