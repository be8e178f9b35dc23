package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/rest"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/listwatch"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// target is what a command reads: resources, maybe with names, in one
// namespace or all, with selectors. watch and get share it.
type target struct {
	configFlags *genericclioptions.ConfigFlags

	AllNamespaces bool
	LabelSelector string
	FieldSelector string
	ListMode      string
	NoDaemon      bool
	// SilenceTimeout is listwatch.Options.SilenceTimeout (0: its default).
	SilenceTimeout time.Duration

	// Files are kubectl's -f, -k and -R: manifests whose objects the
	// command reads, in their namespaces, instead of resource arguments.
	Files resource.FilenameOptions

	verb              string   // the command: get, watch, serve
	args              []string // the resource arguments as typed
	namespace         string
	explicitNamespace bool // --namespace given: a manifest's objects must be there
	config            *rest.Config
	mapper            meta.RESTMapper // the server's kinds, as resolve read them
	targets           []wanted        // what args or Files name, in the order given
	sources           []source        // the reflectors that targets need, each once, in order
	resources         []kube.Resource // the resources of targets, each once, in order
	// fileSingle is kubectl's "single item implied": one file (no
	// directory, no -R); if it holds one object, that is printed alone
	// rather than in a List, and no object of it if one cannot be read.
	fileSingle bool
	// misplaced are the objects of manifests in another namespace than
	// --namespace; unread are the documents the resource builder could
	// not read as objects (an unknown kind). See resolveFiles.
	misplaced, unread []error
	daemon            *daemon.Daemon // serving this identity, if one runs (findDaemon)
	// daemonMapper is the daemon's discovery, once read (resolveAtDaemon).
	daemonMapper meta.RESTMapper
}

// wanted is what one argument, or one object of a manifest, names: a
// kube.Target in a namespace.
type wanted struct {
	kube.Target
	// namespace is where its objects are: the command's ("" for all),
	// or a manifest object's ("" for a cluster-scoped one).
	namespace string
	// err, for a manifest's object that names no namespace under
	// --all-namespaces, is what get reports in its place; it has no source.
	err error
}

// source is one reflector of a command: a resource in a namespace (""
// for all of them, and for a cluster-scoped resource from a manifest).
type source struct {
	res       kube.Resource
	namespace string
}

func (t *target) addFlags(f *pflag.FlagSet, verb string) {
	f.BoolVarP(&t.AllNamespaces, "all-namespaces", "A", false, verb+" the kinds in every namespace")
	f.StringVarP(&t.LabelSelector, "selector", "l", "", "Label selector to filter on, e.g. -l key1=value1,key2=value2")
	f.StringVar(&t.FieldSelector, "field-selector", "", "Field selector to filter on, e.g. --field-selector metadata.name=web")
	f.StringVar(&t.ListMode, "list-mode", "whole", "How to list: whole (one LIST, decoded as it arrives), paged (LIST 500 at a time) or streaming (a watch with sendInitialEvents, paged when the server lacks it)")
	_ = f.MarkHidden("list-mode")
	f.DurationVar(&t.SilenceTimeout, "watch-silence-timeout", 0, "How long a watch whose server sent bookmarks may stay silent before its connection is taken as dead (0: 90s; negative: never)")
	_ = f.MarkHidden("watch-silence-timeout")
	f.BoolVar(&t.NoDaemon, "no-daemon", false, "Read the API server even when a kubectl reflect serve of the same cluster and user runs")
	cmdutil.AddJsonFilenameFlag(f, &t.Files.Filenames, "Filename, directory, or URL to files identifying the objects to "+strings.ToLower(verb)+", in their namespaces")
	cmdutil.AddKustomizeFlag(f, &t.Files.Kustomize)
	f.BoolVarP(&t.Files.Recursive, "recursive", "R", false, "Process the directory used in -f, --filename recursively. Useful when you want to manage related manifests organized within the same directory.")
}

// selects says whether a label or field selector is given.
func (t *target) selects() bool {
	return strings.TrimSpace(t.LabelSelector) != "" || strings.TrimSpace(t.FieldSelector) != ""
}

// fromFiles says whether -f or -k name the objects.
func (t *target) fromFiles() bool { return len(t.Files.Filenames) > 0 || t.Files.Kustomize != "" }

// listModes are the values of --list-mode.
var listModes = map[string]listwatch.ListMode{"whole": listwatch.ListWhole, "paged": listwatch.ListPaged, "streaming": listwatch.ListStreaming}

// watcherOptions are the pkg/listwatch Watcher options of --list-mode and
// --watch-silence-timeout, which oneShotOptions and streamOptions complete.
func (t *target) watcherOptions() listwatch.Options {
	return listwatch.Options{List: listModes[t.ListMode], SilenceTimeout: t.SilenceTimeout}
}

// complete keeps the resource arguments (see kube.ParseArgs) and reads
// the namespace. verb names the command in kubectl's answer to no
// arguments, written to errOut, and in the examples of ParseArgs's errors.
func (t *target) complete(args []string, errOut io.Writer, verb string) error {
	if len(args) == 0 && !t.fromFiles() {
		return noKind(errOut, verb)
	}
	t.verb, t.args = verb, args
	var err error
	if t.namespace, t.explicitNamespace, err = t.configFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	if t.AllNamespaces {
		t.namespace, t.explicitNamespace = "", false
	}
	return nil
}

// noKind says what kubectl get says without arguments: a hint on errOut,
// then a usage error. Unlike kubectl's, it names this plugin's help.
func noKind(errOut io.Writer, verb string) error {
	fmt.Fprintf(errOut, "You must specify the type of resource to %s. Use \"kubectl api-resources\" for a complete list of supported resources.\n\n", verb)
	return errors.New("Required resource not specified.\n" + // kubectl's words, capital and all
		"Use \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\n" +
		"See 'kubectl reflect " + verb + " -h' for help and examples")
}

// validate checks what needs no server.
func (t *target) validate() error {
	if _, err := labels.Parse(t.LabelSelector); err != nil {
		return fmt.Errorf("invalid label selector %q: %w", t.LabelSelector, err)
	}
	if _, err := fields.ParseSelector(t.FieldSelector); err != nil {
		return fmt.Errorf("invalid field selector %q: %w", t.FieldSelector, err)
	}
	if _, ok := listModes[t.ListMode]; !ok {
		return fmt.Errorf("invalid --list-mode %q: want whole, paged or streaming", t.ListMode)
	}
	switch { // kubectl's (cli-runtime's) words
	case len(t.Files.Filenames) > 0 && t.Files.Kustomize != "":
		return errors.New("only one of -f or -k can be specified")
	case t.Files.Kustomize != "" && t.Files.Recursive:
		return errors.New("the -k flag can't be used with -f or -R")
	case t.fromFiles() && len(t.args) > 0:
		return errors.New("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
	}
	return nil
}

// resolve reads the client config, then the arguments as kubectl does:
// categories expanded through the server's discovery, kinds resolved
// through its RESTMapper. When a daemon of the same identity caches every
// kind asked for, its discovery resolves them and the API server is not
// asked at all.
func (t *target) resolve() error {
	var err error
	if t.config, err = t.configFlags.ToRESTConfig(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	if t.fromFiles() {
		t.findDaemon(context.Background())
		return t.resolveFiles()
	}
	if t.findDaemon(context.Background()); t.daemon != nil && t.resolveAtDaemon() {
		return nil
	}
	return t.resolveWith(t.configFlags, resource.NewBuilder(t.configFlags).ReplaceAliases)
}

// resolveWith resolves the arguments through getter's discovery, with
// replaceAliases expanding categories.
func (t *target) resolveWith(getter genericclioptions.RESTClientGetter, replaceAliases func(string) string) error {
	args, err := kube.ParseArgs(t.args, kube.ArgsOptions{
		Selector:       t.selects(),
		ReplaceAliases: replaceAliases,
		Command:        "kubectl reflect " + t.verb,
	})
	if err != nil {
		return err
	}
	if t.mapper, err = getter.ToRESTMapper(); err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	targets, err := kube.ResolveArgs(t.mapper, args)
	if err != nil {
		return err
	}
	t.targets = t.targets[:0]
	for _, tg := range targets {
		if len(tg.Names) > 0 && tg.Resource.Namespaced && t.AllNamespaces {
			return errors.New("a resource cannot be retrieved by name across all namespaces")
		}
		t.targets = append(t.targets, wanted{Target: tg, namespace: t.namespace})
	}
	t.index()
	return nil
}

// index lists the sources and resources of t.targets, each once, in order.
func (t *target) index() {
	t.sources, t.resources = t.sources[:0], t.resources[:0]
	for _, tg := range t.targets {
		if tg.err != nil {
			continue
		}
		if src := tg.source(); !slices.Contains(t.sources, src) {
			t.sources = append(t.sources, src)
		}
		if !slices.Contains(t.resources, tg.Resource) {
			t.resources = append(t.resources, tg.Resource)
		}
	}
}

// severalNamespaces says whether the sources of namespaced resources are
// in more than one namespace (the objects of manifests).
func (t *target) severalNamespaces() bool {
	var first *source
	for i, src := range t.sources {
		switch {
		case !src.res.Namespaced:
		case first == nil:
			first = &t.sources[i]
		case src.namespace != first.namespace:
			return true
		}
	}
	return false
}

// source is the reflector that reads w.
func (w wanted) source() source { return source{res: w.Resource, namespace: w.namespace} }

// errEmptyName is kubectl's (client-go's) error for a name "".
var errEmptyName = errors.New("resource name may not be empty")

// named says whether the arguments name objects (KIND NAME, KIND/NAME).
func (t *target) named() bool { return len(t.targets) > 0 && len(t.targets[0].Names) > 0 }

// singleItem says whether the arguments name exactly one object, which
// kubectl then prints alone rather than in a List.
// From manifests, that object must be the only one of the only file.
func (t *target) singleItem() bool {
	if t.fromFiles() && !t.fileSingle {
		return false
	}
	return len(t.targets) == 1 && len(t.targets[0].Names) == 1
}

// names returns the names asked of src, each once, in the order given;
// nil asks for every object.
func (t *target) names(src source) []string {
	var names []string
	for _, tg := range t.targets {
		if tg.source() != src {
			continue
		}
		for _, n := range tg.Names {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// scope is what the command reads of res: read (what it prints: the
// printer cells with the objects' metadata or whole objects, pruned as
// read.Prune says) within its namespace and selectors. One name narrows
// the list with a field selector; several are kept by the client
// (kube.Scope.Names). Whole objects (not a table's metadata) are packed
// when they come in a LIST (kube.Scope.PackLists): the list is what holds
// the command's memory (a fifth less at 1 KiB of random text per
// ConfigMap), for a few microseconds per object listed. Those of watch
// events are kept as they came: packing and unpacking would be an eighth
// of watch's CPU per live event.
func (t *target) scope(src source, read kube.Scope) kube.Scope {
	scope := kube.Scope{
		Namespace: src.namespace, LabelSelector: t.LabelSelector, FieldSelector: t.FieldSelector,
		Table: read.Table, MetadataOnly: read.MetadataOnly, Prune: read.Prune,
		PackLists: wholeObjects(read),
	}
	switch names := t.names(src); len(names) {
	case 0:
	case 1:
		scope.FieldSelector = kube.NameFieldSelector(names[0], scope.FieldSelector)
	default:
		scope.Names = names
	}
	return scope
}

// wholeObjects says whether a command that reads read holds whole objects,
// not their metadata (a table's cells and metadata, or names).
func wholeObjects(read kube.Scope) bool { return !read.MetadataOnly }

// acquire starts the command's reflectors, one per source (a resource in
// a namespace), from a reflector.Set of its own with setOpts (their
// watcher options, hooks and stores; acquire sets the clients), each
// reading what read says (see scope), and returns their leases in the
// order of t.sources, and a function that releases them all (and waits for
// the reflectors to stop).
func (t *target) acquire(setOpts reflector.SetOptions, read kube.Scope) ([]*reflector.Lease, func(), error) {
	newClient, err := t.newClients()
	if err != nil {
		return nil, nil, err
	}
	tuneGC(wholeObjects(read))
	setOpts.NewClient = newClient
	set := reflector.NewSet(setOpts)
	leases := make([]*reflector.Lease, 0, len(t.sources))
	for _, src := range t.sources {
		leases = append(leases, set.Acquire(src.res, t.scope(src, read)))
	}
	release := func() {
		for _, l := range leases {
			l.Release()
		}
	}
	return leases, release, nil
}
