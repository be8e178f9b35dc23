package daemon

import (
	"context"
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// NewClient makes a reflector's client for a resource in a scope (the
// signature of reflector.SetOptions.NewClient).
type NewClient = func(kube.Resource, kube.Scope) reflector.Client

// Getter is a RESTClientGetter of the daemon's discovery, cached in
// memory (a disk cache would outlive the daemon and its port), and of
// user's kubeconfig otherwise (the namespace). Its RESTMapper resolves a
// short name that two kinds share as kubectl's does: to the first in the
// server's order, with kubectl's warning.
func (d *Daemon) Getter(user genericclioptions.RESTClientGetter) *Getter {
	return newGetter(d.Config, user)
}

// Getter: see Daemon.Getter.
type Getter struct {
	config *rest.Config
	disc   discovery.CachedDiscoveryInterface
	user   genericclioptions.RESTClientGetter
}

func newGetter(cfg *rest.Config, user genericclioptions.RESTClientGetter) *Getter {
	dc := discovery.NewDiscoveryClientForConfigOrDie(rest.CopyConfig(cfg))
	return &Getter{config: cfg, disc: orderedDiscovery{memory.NewMemCacheClient(dc)}, user: user}
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

// ToRESTConfig is the daemon's config.
func (g *Getter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.config), nil }

// ToDiscoveryClient is the daemon's discovery, cached in memory.
func (g *Getter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.disc, nil
}

// ToRESTMapper resolves kinds through the daemon's discovery.
func (g *Getter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper(), nil }

func (g *Getter) mapper() meta.RESTMapper {
	m := restmapper.NewDeferredDiscoveryRESTMapper(g.disc)
	warnings := printers.NewWarningPrinter(os.Stderr, printers.WarningPrinterOptions{Color: printers.AllowsColorOutput(os.Stderr)})
	return restmapper.NewShortcutExpander(m, g.disc, warnings.Print)
}

// ToRawKubeConfigLoader is the user's kubeconfig.
func (g *Getter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return g.user.ToRawKubeConfigLoader()
}
