package controlplane

import (
	"io"
	"time"
)

// Options configure Start. The zero value starts etcd, kube-apiserver and
// kube-controller-manager from freshly built (or cached) binaries, with logs in
// the control plane's temporary directory.
type Options struct {
	// Binaries, if Dir is set, are used as they are instead of calling Build.
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
	// garbagecollector and namespace.
	Controllers []string

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

func (o Options) withDefaults() Options {
	if len(o.Controllers) == 0 {
		o.Controllers = []string{"garbagecollector", "namespace"}
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 60 * time.Second
	}
	if o.StopGracePeriod <= 0 {
		o.StopGracePeriod = 5 * time.Second
	}
	return o
}
