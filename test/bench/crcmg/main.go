// Command crcmg is the ConfigMapGenerator controller written with
// controller-runtime, the measuring stick of `make bench`'s controller part:
// the same reconcile as `kubectl reflect run-controller configmap-generator`
// (server-side apply of the ConfigMap with a controller ownerReference, the
// status with observedGeneration, a Ready condition and the generated name)
// with controller-runtime's defaults, but for the concurrency and the
// client-side rate limit, which the benchmark sets equal for both; with
// -advised, configured as controller-runtime's docs advise for the job
// (metadata.go). Like
// configmap-generator it skips an apply that would change nothing, prunes
// older hash-suffixed ConfigMaps and refuses an invalid spec or a ConfigMap
// it does not own (Ready=False); unlike it, it emits no Event for a refusal
// and does not watch the ConfigMap in the way go away: neither is on the
// path the benchmark measures.
//
// It is a module of its own so that kubectl-reflect's go.mod never depends on
// controller-runtime; it pins the same k8s.io libraries.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "error: "+err.Error())
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("crcmg", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "the kubeconfig")
	namespace := fs.String("namespace", "", "watch only this namespace (default: all)")
	concurrency := fs.Int("concurrency", 4, "reconciles at once (MaxConcurrentReconciles)")
	qps := fs.Float64("qps", -1, "client-side rate limit, requests per second; negative turns it off")
	advised := fs.Bool("advised", false, "configure controller-runtime as its docs advise for this job: the owned ConfigMaps watched and cached as metadata only (builder.OnlyMetadata), managedFields stripped from every cached object (cache.Options.DefaultTransform)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctrl.SetLogger(klog.NewKlogr()) // errors and start-up lines to stderr
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS = float32(*qps)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := addToScheme(scheme); err != nil {
		return err
	}
	opts := ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}}
	if *namespace != "" {
		opts.Cache.DefaultNamespaces = map[string]cache.Config{*namespace: {}}
	}
	var owns []builder.OwnsOption
	if *advised {
		opts.Cache.DefaultTransform = cache.TransformStripManagedFields()
		owns = append(owns, builder.OnlyMetadata)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&ConfigMapGenerator{}).
		Owns(&corev1.ConfigMap{}, owns...).
		WithOptions(controller.Options{MaxConcurrentReconciles: *concurrency}).
		Complete(&reconciler{Client: mgr.GetClient(), metadata: *advised})
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
