package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/merge"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// MergedContext is the context of RunContexts' kubeconfig that reads the
// merged view of every cluster.
const MergedContext = "merged"

// Member is one context of RunContexts: its name and its daemon's Config.
type Member struct {
	Name   string
	Config Config
}

// ContextsOptions are RunContexts' own: the merged view's port (0: a free
// one), where its kubeconfig is printed (Out, if set) and where it says
// where it serves.
type ContextsOptions struct {
	Port        int
	Out, ErrOut io.Writer
}

// RunContexts runs a daemon per member, each as Run runs it (its identity,
// lock, files, reflectors: `get --context` of any of them uses it), and,
// once every one serves, the merged view of them all (pkg/merge) at
// 127.0.0.1 behind its own certificate and token. It writes a kubeconfig
// with a context per member, named as the member, that reads its daemon,
// and MergedContext, and runs until ctx ends or a daemon stops; then
// every daemon stops. A daemon that fails before it serves fails the
// whole.
func RunContexts(ctx context.Context, members []Member, opts ContextsOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	serving := make(chan memberServing, len(members))
	done := make(chan error, len(members)) // never full: a send per daemon
	var wg sync.WaitGroup
	for _, group := range byIdentity(members) { // contexts of one cluster and user share a daemon
		m := group[0]
		cfg := m.Config
		cfg.Out = nil
		cfg.Serving = func(kc []byte) {
			for _, g := range group {
				serving <- memberServing{g.Name, kc}
			}
		}
		wg.Go(func() {
			err := Run(ctx, cfg)
			if err != nil && !errors.Is(err, context.Canceled) {
				err = fmt.Errorf("context %s: %w", m.Name, err)
			} else {
				err = nil
			}
			done <- err
		})
	}
	err := runMerged(ctx, members, opts, serving, done)
	cancel()
	wg.Wait()
	close(done)
	for derr := range done { // those runMerged did not receive
		if err == nil {
			err = derr
		}
	}
	return err
}

// byIdentity groups members by their daemon's identity (Identity), in
// their order: the contexts of one cluster and user (their namespaces
// aside) are served by one daemon, which holds every namespace.
func byIdentity(members []Member) [][]Member {
	var groups [][]Member
	index := map[string]int{}
	for _, m := range members {
		id := Identity(m.Config.REST)
		if i, ok := index[id]; ok {
			groups[i] = append(groups[i], m)
			continue
		}
		index[id] = len(groups)
		groups = append(groups, []Member{m})
	}
	return groups
}

// memberServing is a member's daemon serving, with its kubeconfig.
type memberServing struct {
	name       string
	kubeconfig []byte
}

// runMerged waits for every member to serve, then serves their merged
// view until ctx ends or a member ends.
func runMerged(ctx context.Context, members []Member, opts ContextsOptions, serving <-chan memberServing, done <-chan error) error {
	kubeconfigs := map[string][]byte{}
	for len(kubeconfigs) < len(members) {
		select {
		case s := <-serving:
			kubeconfigs[s.name] = s.kubeconfig
		case err := <-done:
			return memberEnded(err)
		case <-ctx.Done():
			return nil
		}
	}
	v, err := newMergedView(members, kubeconfigs, opts.Port)
	if err != nil {
		return err
	}
	defer v.close()
	fmt.Fprintf(opts.ErrOut, "Serving the merged view of %s read-only at %s\nkubeconfig: %s (contexts %s and %s)\n",
		strings.Join(v.names, ", "), v.server, v.path, strings.Join(v.names, ", "), MergedContext)
	if opts.Out != nil {
		if _, err := opts.Out.Write(v.kubeconfig); err != nil {
			return fmt.Errorf("printing the kubeconfig: %w", err)
		}
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-v.served:
		return fmt.Errorf("serving the merged view: %w", err)
	case err := <-done:
		return memberEnded(err)
	}
}

// memberEnded is a member's end before ctx's: an error (its own, or that
// it stopped).
func memberEnded(err error) error {
	if err == nil {
		err = errors.New("a context's daemon stopped")
	}
	return err
}

// mergedView is the merged view's server and kubeconfig.
type mergedView struct {
	names      []string
	server     string
	kubeconfig []byte
	path       string
	srv        *http.Server
	served     chan error
	stop       context.CancelFunc // ends the watches
}

// newMergedView listens at port and serves the view of members whose
// daemons' kubeconfigs are given, and writes the kubeconfig of them all.
func newMergedView(members []Member, kubeconfigs map[string][]byte, port int) (*mergedView, error) {
	v := &mergedView{served: make(chan error, 1)}
	var clusters []merge.Cluster
	for _, m := range members {
		cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfigs[m.Name])
		if err != nil {
			return nil, fmt.Errorf("context %s: its daemon's kubeconfig: %w", m.Name, err)
		}
		c, err := merge.ClusterFor(m.Name, cfg)
		if err != nil {
			return nil, err
		}
		clusters = append(clusters, c)
		v.names = append(v.names, m.Name)
	}
	h, err := merge.New(clusters)
	if err != nil {
		return nil, err
	}
	cred, err := newCredentials()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listening: %w", err)
	}
	v.server = "https://" + ln.Addr().String()
	if err := v.writeKubeconfig(members, kubeconfigs, cred); err != nil {
		ln.Close()
		return nil, err
	}
	serveCtx, stop := context.WithCancel(context.Background())
	v.stop = stop
	v.srv = cred.server(serveCtx, serve.WithToken(h, cred.token))
	go func() { v.served <- v.srv.ServeTLS(ln, "", "") }()
	return v, nil
}

// writeKubeconfig writes, in Dir, the kubeconfig of every member's daemon
// and of the view, named after the members' identities.
func (v *mergedView) writeKubeconfig(members []Member, kubeconfigs map[string][]byte, cred *credentials) error {
	out := clientcmdapi.NewConfig()
	var ids []string
	for _, m := range members {
		kc, err := clientcmd.Load(kubeconfigs[m.Name])
		if err != nil {
			return fmt.Errorf("context %s: its daemon's kubeconfig: %w", m.Name, err)
		}
		c := kc.Contexts[kc.CurrentContext]
		out.Clusters[m.Name], out.AuthInfos[m.Name] = kc.Clusters[c.Cluster], kc.AuthInfos[c.AuthInfo]
		out.Contexts[m.Name] = &clientcmdapi.Context{Cluster: m.Name, AuthInfo: m.Name, Namespace: m.Config.KubeconfigNamespace}
		ids = append(ids, m.Name+"="+Identity(m.Config.REST))
	}
	out.Clusters[MergedContext] = &clientcmdapi.Cluster{Server: v.server, CertificateAuthorityData: cred.certPEM}
	out.AuthInfos[MergedContext] = &clientcmdapi.AuthInfo{Token: cred.token}
	out.Contexts[MergedContext] = &clientcmdapi.Context{Cluster: MergedContext, AuthInfo: MergedContext, Namespace: members[0].Config.KubeconfigNamespace}
	out.CurrentContext = MergedContext
	content, err := clientcmd.Write(*out)
	if err != nil {
		return fmt.Errorf("encoding the kubeconfig: %w", err)
	}
	dir, err := Dir()
	if err != nil {
		return err
	}
	slices.Sort(ids)
	sum := sha256.Sum256([]byte(strings.Join(ids, ",")))
	v.path = filepath.Join(dir, "merged-"+hex.EncodeToString(sum[:8])+".kubeconfig")
	v.kubeconfig = content
	return WritePrivate(v.path, content)
}

// close stops serving and removes the kubeconfig.
func (v *mergedView) close() {
	v.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = v.srv.Shutdown(ctx)
	_ = os.Remove(v.path)
}
