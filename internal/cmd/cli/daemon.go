package cli

import (
	"context"
	"fmt"

	"k8s.io/cli-runtime/pkg/resource"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon/failover"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// findDaemon looks for a daemon serving the kubeconfig's identity, unless
// --no-daemon, and keeps it in t.daemon. A daemon that cannot be found or
// does not answer is none: the command reads the API server.
func (t *Target) findDaemon(ctx context.Context) {
	if t.NoDaemon {
		return
	}
	d, err := daemon.Find(ctx, t.Config)
	if err != nil || d == nil {
		return
	}
	t.daemon = d
}

// resolveAtDaemon resolves the arguments through the daemon's discovery,
// and says whether that resolved them all. Only a daemon that adds kinds
// on demand is asked: its discovery is a copy of the API server's (the
// resources it lists and watches, in its order), so names, short names
// and categories resolve there as at the server, even a custom
// resource's short name that shadows a built-in one (the server's order
// decides, for both). A daemon whose discovery lists only its kinds would
// resolve a short name to the one of its kinds that has it, which the
// server may resolve to another kind. Otherwise, or when the daemon's
// discovery lacks a kind (one the server serves but does not watch, or
// one newer than its copy), the API server resolves them.
func (t *Target) resolveAtDaemon() bool {
	if !t.daemon.OnDemand {
		return false
	}
	getter := t.daemon.Getter(t.ConfigFlags)
	if err := t.resolveWith(getter, resource.NewBuilder(getter).ReplaceAliases); err != nil {
		return false
	}
	t.daemonMapper = t.Mapper
	return true
}

// newClients returns how the command's reflectors make their clients: at
// the daemon for the kinds it reads, falling over to the API server if it
// goes away (failover.Clients), at the API server for the others.
func (t *Target) newClients() (daemon.NewClient, error) {
	rc, err := kube.NewRESTClient(t.Config)
	if err != nil {
		return nil, err
	}
	if t.daemon == nil {
		return reflector.RESTClients(rc, kube.RediscoverWith(t.Mapper)), nil
	}
	mapper, err := t.ConfigFlags.ToRESTMapper() // the server's, which t.Mapper may not be; asks nothing until used
	if err != nil {
		return nil, fmt.Errorf("reading the server's resource types: %w", err)
	}
	server := reflector.RESTClients(rc, kube.RediscoverWith(mapper))
	return failover.Clients(t.daemon, server, t.daemonMapper, t.ConfigFlags)
}
