package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Fleet is several clusters on one machine: each a kube-apiserver (and a
// kube-controller-manager) of its own, with its own certificates, tokens
// and port, storing its data under a prefix of its own (--etcd-prefix) in
// one etcd, the first cluster's. Its kubeconfig has a context per cluster,
// named after it, as a user with several clusters has.
type Fleet struct {
	names      []string
	clusters   map[string]*ControlPlane
	kubeconfig string
}

// StartFleet starts a cluster per name with opts (SharedEtcd and
// EtcdPrefix are set for each), the first with its etcd.
func StartFleet(ctx context.Context, names []string, opts Options) (_ *Fleet, err error) {
	if len(names) == 0 {
		return nil, errors.New("a fleet needs a cluster at least")
	}
	f := &Fleet{names: slices.Clone(names), clusters: map[string]*ControlPlane{}}
	defer func() {
		if err != nil {
			_ = f.Stop()
		}
	}()
	for i, name := range names {
		o := opts
		o.EtcdPrefix = "/" + name
		if i > 0 {
			o.SharedEtcd = f.clusters[names[0]].EtcdURL()
		}
		c, err := Start(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", name, err)
		}
		f.clusters[name] = c
	}
	f.kubeconfig = filepath.Join(f.clusters[names[0]].Dir(), "fleet.kubeconfig")
	return f, f.writeKubeconfig()
}

// writeKubeconfig writes a kubeconfig with a cluster, user (the admin) and
// context per cluster, all named after it; the first is current.
func (f *Fleet) writeKubeconfig() error {
	cfg := clientcmdapi.NewConfig()
	for _, name := range f.names {
		c := f.clusters[name]
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: c.Server(), CertificateAuthorityData: c.creds.caPEM}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: c.creds.adminToken}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	}
	cfg.CurrentContext = f.names[0]
	if err := clientcmd.WriteToFile(*cfg, f.kubeconfig); err != nil {
		return fmt.Errorf("write the fleet's kubeconfig: %w", err)
	}
	return os.Chmod(f.kubeconfig, 0o600)
}

// Names are the clusters' names, in the order given.
func (f *Fleet) Names() []string { return slices.Clone(f.names) }

// Cluster is the cluster of that name.
func (f *Fleet) Cluster(name string) *ControlPlane { return f.clusters[name] }

// Kubeconfig is the path of a kubeconfig with one context per cluster (the
// admin of each), named after it; the first cluster's is current. A test
// that changes it works on a copy.
func (f *Fleet) Kubeconfig() string { return f.kubeconfig }

// Stop stops every cluster, the first (which runs etcd) last.
func (f *Fleet) Stop() error {
	var errs []error
	for i := len(f.names) - 1; i >= 0; i-- {
		if c := f.clusters[f.names[i]]; c != nil {
			errs = append(errs, c.Stop())
		}
	}
	return errors.Join(errs...)
}

// RevokeUserToken makes kube-apiserver forget UnprivilegedUser's token (its
// token file lists the admin's alone) and restarts it, so that a client
// holding it is answered 401 Unauthorized from then on.
func (c *ControlPlane) RevokeUserToken(ctx context.Context) error {
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n", c.creds.adminToken, AdminUser, AdminUser)
	if err := os.WriteFile(c.creds.tokenFile, []byte(tokens), 0o600); err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	return c.RestartAPIServer(ctx)
}
