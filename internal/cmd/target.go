package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// target is what a command reads: some kinds, maybe some names, in one
// namespace or all, with selectors. watch and get share it.
type target struct {
	configFlags *genericclioptions.ConfigFlags

	AllNamespaces bool
	LabelSelector string
	FieldSelector string
	ListMode      string

	kinds     string
	names     []string
	namespace string
	config    *rest.Config
	resources []kube.Resource
}

func (t *target) addFlags(f *pflag.FlagSet, verb string) {
	f.BoolVarP(&t.AllNamespaces, "all-namespaces", "A", false, verb+" the kinds in every namespace")
	f.StringVarP(&t.LabelSelector, "selector", "l", "", "Label selector to filter on, e.g. -l key1=value1,key2=value2")
	f.StringVar(&t.FieldSelector, "field-selector", "", "Field selector to filter on, e.g. --field-selector metadata.name=web")
	f.StringVar(&t.ListMode, "list-mode", "whole", "How to list: whole (one LIST, decoded as it arrives), paged (LIST 500 at a time) or streaming (a watch with sendInitialEvents, paged when the server lacks it)")
	_ = f.MarkHidden("list-mode")
}

// listModes are the values of --list-mode.
var listModes = map[string]watch.ListMode{"whole": watch.ListWhole, "paged": watch.ListPaged, "streaming": watch.ListStreaming}

// watchOptions are the watcher options of --list-mode.
func (t *target) watchOptions() watch.Options { return watch.Options{List: listModes[t.ListMode]} }

// complete reads KIND[,KIND...] [NAME...] or KIND/NAME and the namespace.
func (t *target) complete(args []string) error {
	t.kinds, t.names = args[0], args[1:]
	if kind, name, ok := strings.Cut(args[0], "/"); ok {
		if len(args) > 1 {
			return fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form")
		}
		t.kinds, t.names = kind, []string{name}
	}
	var err error
	if t.namespace, _, err = t.configFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	if t.AllNamespaces {
		t.namespace = ""
	}
	return nil
}

// validate checks what needs no server.
func (t *target) validate() error {
	if len(t.names) > 0 && t.AllNamespaces {
		return fmt.Errorf("a resource cannot be retrieved by name across all namespaces")
	}
	if len(t.names) > 0 && strings.Contains(t.kinds, ",") {
		return fmt.Errorf("names can only be given with a single kind, not %q", t.kinds)
	}
	if _, err := labels.Parse(t.LabelSelector); err != nil {
		return fmt.Errorf("invalid label selector %q: %w", t.LabelSelector, err)
	}
	if _, err := fields.ParseSelector(t.FieldSelector); err != nil {
		return fmt.Errorf("invalid field selector %q: %w", t.FieldSelector, err)
	}
	if _, ok := listModes[t.ListMode]; !ok {
		return fmt.Errorf("invalid --list-mode %q: want whole, paged or streaming", t.ListMode)
	}
	return nil
}

// resolve reads the client config and resolves the kinds through the
// server's discovery.
func (t *target) resolve() error {
	var err error
	if t.config, err = t.configFlags.ToRESTConfig(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	mapper, err := t.configFlags.ToRESTMapper()
	if err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	t.resources, err = kube.Resolve(mapper, t.kinds)
	return err
}

// reflector is the client and store of one kind.
type reflector struct {
	client *kube.Client
	store  *store.Store[*object.Object]
}

// reflectors builds one client and store per kind. One name narrows the
// list with a field selector; several are picked from the store. The stores
// keep JSON as it came (kube.Scope.Pack off): packing and unpacking would be
// an eighth of watch's CPU per live event, for memory that watch and get,
// which live as long as their command, do not need back.
func (t *target) reflectors(table bool, prune object.Prune) ([]*reflector, error) {
	rc, err := kube.NewRESTClient(t.config)
	if err != nil {
		return nil, err
	}
	fieldSelector := t.FieldSelector
	if len(t.names) == 1 {
		fieldSelector = joinSelectors("metadata.name="+t.names[0], fieldSelector)
	}
	out := make([]*reflector, 0, len(t.resources))
	for _, res := range t.resources {
		scope := kube.Scope{
			Namespace: t.namespace, LabelSelector: t.LabelSelector, FieldSelector: fieldSelector,
			Table: table, Prune: prune,
		}
		out = append(out, newReflector(kube.NewClient(rc, res, scope)))
	}
	return out, nil
}

// newReflector gives client a store, and the store's objects to client so
// that a relist reuses the unchanged ones instead of decoding them again.
func newReflector(client *kube.Client) *reflector {
	st := store.New(store.Options[*object.Object]{})
	client.Reuse(func(namespace, name string) (*object.Object, bool) {
		return st.Get(store.Key{Namespace: namespace, Name: name})
	})
	return &reflector{client: client, store: st}
}

func joinSelectors(a, b string) string {
	if b == "" {
		return a
	}
	return a + "," + b
}

// run runs r's watcher into its store; it returns only the error that ended
// it for good. Retried errors (unless opts.OnError handles them) and relists
// are reported as warnings.
func (r *reflector) run(ctx context.Context, opts watch.Options, report *reporter) error {
	name := r.client.Resource().String()
	if opts.OnError == nil {
		opts.OnError = func(err error, retryIn time.Duration) {
			report.warnf("%v; retrying in %s", err, retryIn.Round(100*time.Millisecond))
		}
	}
	opts.OnRelist = func(err error) {
		report.warnf("%s: %v; relisting", name, err)
	}
	listed := 0
	return watch.New(r.client, opts).Run(ctx, func(ctx context.Context, ev watch.Event[*object.Object]) error {
		switch ev.Type {
		case watch.Init:
			listed = 0
		case watch.InitApply:
			listed++
			report.progress(name, listed)
		case watch.InitDone:
			report.progressDone(name)
		}
		return r.store.Apply(ctx, ev)
	})
}
