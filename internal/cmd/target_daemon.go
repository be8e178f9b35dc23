package cmd

import (
	"context"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// findDaemon looks for a daemon serving the kubeconfig's identity, unless
// --no-daemon, and keeps it in t.daemon. A daemon that cannot be found or
// does not answer is none: the command reads the API server.
func (t *target) findDaemon(ctx context.Context) {
	if t.NoDaemon {
		return
	}
	d, err := daemon.Find(ctx, t.config)
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
func (t *target) resolveAtDaemon() bool {
	if !t.daemon.OnDemand {
		return false
	}
	getter := newDaemonGetter(t.daemon.Config, t.configFlags)
	if err := t.resolveWith(getter, resource.NewBuilder(getter).ReplaceAliases); err != nil {
		return false
	}
	t.daemonMapper = t.mapper
	return true
}

// atDaemon says whether the daemon reads res: it caches it, or adds it on
// demand (its discovery has it).
func (t *target) atDaemon(res kube.Resource) bool {
	if t.daemon.Serves(res.GVR) {
		return true
	}
	if !t.daemon.OnDemand {
		return false
	}
	if t.daemonMapper == nil {
		t.daemonMapper = newDaemonGetter(t.daemon.Config, t.configFlags).mapper()
	}
	_, err := t.daemonMapper.KindFor(res.GVR)
	return err == nil
}

// newClients returns how the command's reflectors make their clients: at
// the daemon for the kinds it caches, falling over to the API server if it
// goes away (daemon.Failover), at the API server for the others.
func (t *target) newClients() (func(kube.Resource, kube.Scope) reflector.Client, error) {
	rc, err := kube.NewRESTClient(t.config)
	if err != nil {
		return nil, err
	}
	if t.daemon == nil {
		return reflector.RESTClients(rc, kube.RediscoverWith(t.mapper)), nil
	}
	mapper, err := t.configFlags.ToRESTMapper() // the server's, which t.mapper may not be; asks nothing until used
	if err != nil {
		return nil, fmt.Errorf("reading the server's resource types: %w", err)
	}
	server := reflector.RESTClients(rc, kube.RediscoverWith(mapper))
	drc, err := kube.NewRESTClient(t.daemon.Config)
	if err != nil {
		return nil, err
	}
	atDaemon := reflector.RESTClients(drc, nil)
	gone := &daemon.Gone{}
	return func(res kube.Resource, scope kube.Scope) reflector.Client {
		if !t.atDaemon(res) {
			return server(res, scope)
		}
		return daemon.NewFailover(atDaemon(res, scope), server(res, scope), gone)
	}, nil
}

// daemonGetter is a RESTClientGetter of the daemon's discovery, cached in
// memory (a disk cache would outlive the daemon and its port), and of the
// user's kubeconfig otherwise (the namespace). Its RESTMapper resolves a
// short name that two kinds share as kubectl's does: to the first in the
// server's order, with kubectl's warning.
type daemonGetter struct {
	config *rest.Config
	disc   discovery.CachedDiscoveryInterface
	user   genericclioptions.RESTClientGetter
}

func newDaemonGetter(cfg *rest.Config, user genericclioptions.RESTClientGetter) *daemonGetter {
	dc := discovery.NewDiscoveryClientForConfigOrDie(rest.CopyConfig(cfg))
	return &daemonGetter{config: cfg, disc: orderedDiscovery{memory.NewMemCacheClient(dc)}, user: user}
}

// orderedDiscovery hides the aggregated discovery of its client from
// client-go's ServerGroupsAndResources, which lists the resources of an
// aggregated answer in a map's random order: the RESTMapper's short names
// would then resolve to one kind or another from run to run. Without it,
// they come in the server's order (groups, then versions), as from
// kubectl's disk cache, which has no aggregated path; the client still
// reads the aggregated documents, once.
type orderedDiscovery struct {
	discovery.CachedDiscoveryInterface
}

// ServerGroupsAndResources lists the groups in the server's order, and
// their resources in that order (the embedded client's would list them as
// its aggregated answer's map does).
func (o orderedDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return discovery.ServerGroupsAndResources(o)
}

// ServerGroupsAndResourcesWithContext is ServerGroupsAndResources.
func (o orderedDiscovery) ServerGroupsAndResourcesWithContext(context.Context) ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return discovery.ServerGroupsAndResources(o)
}

func (g *daemonGetter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.config), nil }

func (g *daemonGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.disc, nil
}

func (g *daemonGetter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper(), nil }

func (g *daemonGetter) mapper() meta.RESTMapper {
	m := restmapper.NewDeferredDiscoveryRESTMapper(g.disc)
	warnings := printers.NewWarningPrinter(os.Stderr, printers.WarningPrinterOptions{Color: printers.AllowsColorOutput(os.Stderr)})
	return restmapper.NewShortcutExpander(m, g.disc, warnings.Print)
}

func (g *daemonGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return g.user.ToRawKubeConfigLoader()
}
