package controlplane

import (
	"context"
	"errors"
	"io"
	"time"
)

// Options configure Start. The zero value starts etcd, kube-apiserver and
// kube-controller-manager from freshly built (or cached) binaries, with logs in
// the control plane's temporary directory.
//
// A cluster with nodes where pods run, as tests of what a real cluster does
// need, asks for kube-scheduler and kwok's fake nodes:
//
//	Options{Scheduler: true, Kwok: &KwokOptions{Nodes: 10}}
type Options struct {
	// Binaries, if Dir is set, are used as they are instead of calling Build
	// (Start still builds kube-scheduler or kwok if they are asked for and
	// Binaries lacks them).
	Binaries Binaries
	// Build configures Build when Binaries is empty.
	Build BuildOptions

	// LogOutput, if set, also receives every component's output, each line
	// prefixed with "[component] ". Logs always go to files in LogDir too.
	LogOutput io.Writer
	// KeepDir keeps the temporary directory (data, certificates, kubeconfigs,
	// logs) after Stop, for debugging.
	KeepDir bool

	// NoControllerManager skips kube-controller-manager: no garbage
	// collection, no namespace deletion.
	NoControllerManager bool
	// Controllers are kube-controller-manager's --controllers. Empty means
	// garbagecollector and namespace, or ClusterControllers() when
	// Scheduler or Kwok is set.
	Controllers []string

	// Scheduler runs kube-scheduler, so that pods get nodes.
	Scheduler bool
	// Kwok, if set, runs kwok, the kubelet of fake nodes, and creates
	// Kwok.Nodes of them. Pods run (as far as the API can tell) only on
	// nodes, so a cluster with workloads wants Scheduler too.
	Kwok *KwokOptions

	// ExtraAPIServerFlags are appended to kube-apiserver's flags (later flags
	// win), e.g. "--watch-cache=false" or "--feature-gates=...".
	ExtraAPIServerFlags []string
	// ExtraEtcdFlags are appended to etcd's flags.
	ExtraEtcdFlags []string

	// SharedEtcd, if set, is the client URL of a running etcd (another
	// control plane's EtcdURL) that this one stores its data in instead of
	// starting its own: several clusters on one etcd (see StartFleet).
	// EtcdPrefix then keeps their data apart.
	SharedEtcd string
	// EtcdPrefix is kube-apiserver's --etcd-prefix; empty is its default,
	// /registry.
	EtcdPrefix string

	// ReadyTimeout bounds each wait for a component to become ready.
	// Zero means 60s.
	ReadyTimeout time.Duration
	// StopGracePeriod is how long a component gets after SIGTERM before
	// SIGKILL. Zero means 5s.
	StopGracePeriod time.Duration
}

// ClusterControllers are kube-controller-manager's controllers when
// Options.Scheduler or Options.Kwok is set and Options.Controllers is
// empty: garbage collection and namespace deletion as always, Deployments
// and ReplicaSets, and what a real cluster does with nodes: node lifecycle
// (NotReady and its taints when a node's Lease stops), eviction from tainted
// nodes, and the garbage collection of pods whose node is gone.
func ClusterControllers() []string {
	return []string{
		"garbage-collector-controller", "namespace-controller",
		"deployment-controller", "replicaset-controller",
		"node-lifecycle-controller", "taint-eviction-controller", "pod-garbage-collector-controller",
	}
}

func (o Options) withDefaults() Options {
	if len(o.Controllers) == 0 {
		if o.Scheduler || o.Kwok != nil {
			o.Controllers = ClusterControllers()
		} else {
			o.Controllers = []string{"garbagecollector", "namespace"}
		}
	}
	o.Kwok = o.Kwok.withDefaults()
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 60 * time.Second
	}
	if o.StopGracePeriod <= 0 {
		o.StopGracePeriod = 5 * time.Second
	}
	return o
}

func (o Options) validate() error {
	if o.Kwok != nil && o.Kwok.Nodes < 0 {
		return errors.New("KwokOptions.Nodes is negative")
	}
	return nil
}

// binaries are Binaries if set, else Build's, with kube-scheduler and kwok
// built if asked for and missing.
func (o Options) binaries(ctx context.Context) (Binaries, error) {
	b := o.Build
	b.Scheduler, b.Kwok = o.Scheduler, o.Kwok != nil
	if o.Binaries.Dir == "" {
		return Build(ctx, b)
	}
	bins := o.Binaries
	return bins, buildOptional(ctx, b, &bins, b.Scheduler, b.Kwok)
}
