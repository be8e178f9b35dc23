package failover

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// Clients returns how a command's reflectors make their clients when d
// runs: at the daemon for the kinds it reads (it caches them, or adds them
// on demand: its discovery, mapper, has them; nil reads it when first
// needed), falling over to the API server if it goes away (a Client per
// resource, sharing one Gone), and with server at the API server for the
// others.
func Clients(d *daemon.Daemon, server daemon.NewClient, mapper meta.RESTMapper, user genericclioptions.RESTClientGetter) (daemon.NewClient, error) {
	drc, err := kube.NewRESTClient(d.Config)
	if err != nil {
		return nil, err
	}
	atDaemon := reflector.RESTClients(drc, nil)
	daemonMapper := sync.OnceValue(func() meta.RESTMapper {
		if mapper != nil {
			return mapper
		}
		m, _ := d.Getter(user).ToRESTMapper() // never fails
		return m
	})
	gone := &Gone{}
	return func(res kube.Resource, scope kube.Scope) reflector.Client {
		if !reads(d, res, daemonMapper) {
			return server(res, scope)
		}
		return New(atDaemon(res, scope), server(res, scope), gone)
	}, nil
}

// reads says whether d reads res: it caches it, or adds it on demand (its
// discovery has it).
func reads(d *daemon.Daemon, res kube.Resource, mapper func() meta.RESTMapper) bool {
	if d.Serves(res.GVR) {
		return true
	}
	if !d.OnDemand {
		return false
	}
	_, err := mapper().KindFor(res.GVR)
	return err == nil
}
