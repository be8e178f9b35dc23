// Command watchconfigmaps is a program built on kubectl-reflect's library
// alone (pkg/kube, pkg/watch): it watches the ConfigMaps of one namespace
// until interrupted, as typed *corev1.ConfigMap events, and prints a line
// per event:
//
//	APPLIED ns/name data=N   an object listed, added or modified
//	SYNCED rv=RV             the (re)list is the whole state at RV
//	DELETED ns/name          an object deleted while watching
//
// The watcher resumes after a dropped watch and relists on 410 Gone by
// itself; only an error no retry can fix (403, 404) ends it.
//
//	go run ./examples/watchconfigmaps -kubeconfig ~/.kube/config -n default
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	namespace := flag.String("n", "default", "the namespace to watch")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *namespace, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

var configMaps = kube.Resource{GVR: corev1.SchemeGroupVersion.WithResource("configmaps"), Kind: "ConfigMap", Namespaced: true}

// run watches until ctx ends (nil) or the watcher gives up (its error).
func run(ctx context.Context, kubeconfig, namespace string, out io.Writer) error {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	rc, err := kube.NewRESTClient(cfg)
	if err != nil {
		return fmt.Errorf("making a client: %w", err)
	}
	client := watch.Map(kube.NewClient(rc, configMaps, kube.Scope{Namespace: namespace}), decode)
	err = watch.New(client, watch.Options{}).Run(ctx, func(_ context.Context, ev watch.Event[*corev1.ConfigMap]) error {
		var err error
		switch ev.Type {
		case watch.InitApply, watch.Apply:
			_, err = fmt.Fprintf(out, "APPLIED %s/%s data=%d\n", ev.Object.Namespace, ev.Object.Name, len(ev.Object.Data))
		case watch.InitDone:
			_, err = fmt.Fprintf(out, "SYNCED rv=%s\n", ev.ResourceVersion)
		case watch.Delete:
			_, err = fmt.Fprintf(out, "DELETED %s/%s\n", ev.Object.Namespace, ev.Object.Name)
		}
		return err
	})
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("watching configmaps: %w", err)
}

// decode is the typed ConfigMap of an object as the server sent it.
func decode(o *object.Object) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	if err := json.Unmarshal(o.JSON(), cm); err != nil {
		return nil, fmt.Errorf("decoding configmap %s/%s: %w", o.Namespace, o.Name, err)
	}
	return cm, nil
}
