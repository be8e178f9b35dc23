package cli

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
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/rest"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	"github.com/kubectl-reflect/kubectl-reflect/internal/contexts"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Target is what a command reads: resources, maybe with names, in one
// namespace or all, with selectors. watch and get share it.
type Target struct {
	ConfigFlags *genericclioptions.ConfigFlags

	AllNamespaces bool
	// AllContexts is --all-contexts: every context of the kubeconfig (see
	// Contexts).
	AllContexts   bool
	LabelSelector string
	FieldSelector string
	ListMode      string
	NoDaemon      bool
	// SilenceTimeout is watch.Options.SilenceTimeout (0: its default).
	SilenceTimeout time.Duration

	// Files are kubectl's -f, -k and -R: manifests whose objects the
	// command reads, in their namespaces, instead of resource arguments.
	Files resource.FilenameOptions

	Verb              string   // the command: get, watch, serve
	Args              []string // the resource arguments as typed
	Namespace         string
	ExplicitNamespace bool // --namespace given: a manifest's objects must be there
	Config            *rest.Config
	Mapper            meta.RESTMapper // the server's kinds, as resolve read them
	Targets           []Wanted        // what args or Files name, in the order given
	Feeds             []Feed          // the reflectors that targets need, each once, in order
	Resources         []kube.Resource // the resources of targets, each once, in order
	// FileSingle is kubectl's "single item implied": one file (no
	// directory, no -R); if it holds one object, that is printed alone
	// rather than in a List, and no object of it if one cannot be read.
	FileSingle bool
	// Misplaced are the objects of manifests in another namespace than
	// --namespace; Unread are the documents the resource builder could
	// not read as objects (an unknown kind). See resolveFiles.
	Misplaced, Unread []error
	daemon            *daemon.Daemon // serving this identity, if one runs (findDaemon)
	// daemonMapper is the daemon's discovery, once read (resolveAtDaemon).
	daemonMapper meta.RESTMapper
}

// Wanted is what one argument, or one object of a manifest, names: a
// kube.Target in a namespace.
type Wanted struct {
	kube.Target
	// Namespace is where its objects are: the command's ("" for all),
	// or a manifest object's ("" for a cluster-scoped one).
	Namespace string
	// Err, for a manifest's object that names no namespace under
	// --all-namespaces, is what get reports in its place; it has no source.
	Err error
}

// Feed is one reflector of a command: a resource in a namespace (""
// for all of them, and for a cluster-scoped resource from a manifest).
type Feed struct {
	Resource  kube.Resource
	Namespace string
}

func (t *Target) AddFlags(f *pflag.FlagSet, verb string) {
	f.BoolVarP(&t.AllNamespaces, "all-namespaces", "A", false, verb+" the kinds in every namespace")
	f.BoolVar(&t.AllContexts, "all-contexts", false, verb+" the kinds in every context of the kubeconfig (--context also takes several, comma-separated)")
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

// Selects says whether a label or field selector is given.
func (t *Target) Selects() bool {
	return strings.TrimSpace(t.LabelSelector) != "" || strings.TrimSpace(t.FieldSelector) != ""
}

// FromFiles says whether -f or -k name the objects.
func (t *Target) FromFiles() bool { return len(t.Files.Filenames) > 0 || t.Files.Kustomize != "" }

// listModes are the values of --list-mode.
var listModes = map[string]watch.ListMode{"whole": watch.ListWhole, "paged": watch.ListPaged, "streaming": watch.ListStreaming}

// watcherOptions are the pkg/watch Watcher options of --list-mode and
// --watch-silence-timeout, which oneShotOptions and streamOptions complete.
func (t *Target) watcherOptions() watch.Options {
	return watch.Options{List: listModes[t.ListMode], SilenceTimeout: t.SilenceTimeout}
}

// CompleteArgs keeps the resource arguments (see kube.ParseArgs) and reads
// the namespace. verb names the command in kubectl's answer to no
// arguments, written to errOut, and in the examples of ParseArgs's errors.
func (t *Target) CompleteArgs(args []string, errOut io.Writer, verb string) error {
	if len(args) == 0 && !t.FromFiles() {
		return noKind(errOut, verb)
	}
	t.Verb, t.Args = verb, args
	var err error
	if t.Namespace, t.ExplicitNamespace, err = t.ConfigFlags.ToRawKubeConfigLoader().Namespace(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	if t.AllNamespaces {
		t.Namespace, t.ExplicitNamespace = "", false
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

// ValidateFlags checks what needs no server.
func (t *Target) ValidateFlags() error {
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
	case t.FromFiles() && len(t.Args) > 0:
		return errors.New("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
	}
	return nil
}

// Resolve reads the client config, then the arguments as kubectl does:
// categories expanded through the server's discovery, kinds resolved
// through its RESTMapper. When a daemon of the same identity caches every
// kind asked for, its discovery resolves them and the API server is not
// asked at all.
func (t *Target) Resolve() error {
	var err error
	if t.Config, err = t.ConfigFlags.ToRESTConfig(); err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	if t.FromFiles() {
		t.findDaemon(context.Background())
		return t.resolveFiles()
	}
	if t.findDaemon(context.Background()); t.daemon != nil && t.resolveAtDaemon() {
		return nil
	}
	return t.resolveWith(t.ConfigFlags, resource.NewBuilder(t.ConfigFlags).ReplaceAliases)
}

// resolveWith resolves the arguments through getter's discovery, with
// replaceAliases expanding categories.
func (t *Target) resolveWith(getter genericclioptions.RESTClientGetter, replaceAliases func(string) string) error {
	args, err := kube.ParseArgs(t.Args, kube.ArgsOptions{
		Selector:       t.Selects(),
		ReplaceAliases: replaceAliases,
		Command:        "kubectl reflect " + t.Verb,
	})
	if err != nil {
		return err
	}
	if t.Mapper, err = getter.ToRESTMapper(); err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	targets, err := kube.ResolveArgs(t.Mapper, args)
	if err != nil {
		return err
	}
	t.Targets = t.Targets[:0]
	for _, tg := range targets {
		if len(tg.Names) > 0 && tg.Resource.Namespaced && t.AllNamespaces {
			return errors.New("a resource cannot be retrieved by name across all namespaces")
		}
		t.Targets = append(t.Targets, Wanted{Target: tg, Namespace: t.Namespace})
	}
	t.index()
	return nil
}

// index lists the feeds and resources of t.Targets, each once, in order.
func (t *Target) index() {
	t.Feeds, t.Resources = t.Feeds[:0], t.Resources[:0]
	for _, tg := range t.Targets {
		if tg.Err != nil {
			continue
		}
		if src := tg.Feed(); !slices.Contains(t.Feeds, src) {
			t.Feeds = append(t.Feeds, src)
		}
		if !slices.Contains(t.Resources, tg.Resource) {
			t.Resources = append(t.Resources, tg.Resource)
		}
	}
}

// SeveralNamespaces says whether the feeds of namespaced resources are
// in more than one namespace (the objects of manifests).
func (t *Target) SeveralNamespaces() bool {
	var first *Feed
	for i, src := range t.Feeds {
		switch {
		case !src.Resource.Namespaced:
		case first == nil:
			first = &t.Feeds[i]
		case src.Namespace != first.Namespace:
			return true
		}
	}
	return false
}

// Feed is the reflector that reads w.
func (w Wanted) Feed() Feed { return Feed{Resource: w.Resource, Namespace: w.Namespace} }

// ErrEmptyName is kubectl's (client-go's) error for a name "".
var ErrEmptyName = errors.New("resource name may not be empty")

// Named says whether the arguments name objects (KIND NAME, KIND/NAME).
func (t *Target) Named() bool { return len(t.Targets) > 0 && len(t.Targets[0].Names) > 0 }

// SingleItem says whether the arguments name exactly one object, which
// kubectl then prints alone rather than in a List.
// From manifests, that object must be the only one of the only file.
func (t *Target) SingleItem() bool {
	if t.FromFiles() && !t.FileSingle {
		return false
	}
	return len(t.Targets) == 1 && len(t.Targets[0].Names) == 1
}

// NamesOf returns the names asked of src, each once, in the order given;
// nil asks for every object.
func (t *Target) NamesOf(src Feed) []string {
	var names []string
	for _, tg := range t.Targets {
		if tg.Feed() != src {
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

// Scope is what the command reads of src: objects of the shape read says
// (what it prints: the printer cells with the objects' metadata or whole
// objects, pruned as read.Prune says) within its namespace and
// selectors. One name narrows the list with a field selector; several are
// kept by the client (kube.Scope.Names). Whole objects (not a table's metadata) are packed
// when they come in a LIST (kube.Shape.PackLists): the list is what holds
// the command's memory (a fifth less at 1 KiB of random text per
// ConfigMap), for a few microseconds per object listed. Those of watch
// events are kept as they came: packing and unpacking would be an eighth
// of watch's CPU per live event.
func (t *Target) Scope(src Feed, read kube.Shape) kube.Scope {
	read.PackLists = wholeObjects(read)
	scope := kube.Scope{Namespace: src.Namespace, LabelSelector: t.LabelSelector, FieldSelector: t.FieldSelector, Shape: read}
	switch names := t.NamesOf(src); len(names) {
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
func wholeObjects(read kube.Shape) bool { return !read.MetadataOnly }

// Acquire starts the command's reflectors, one per source (a resource in
// a namespace), from a reflector.Set of its own with setOpts (their
// watcher options, hooks and stores; Acquire sets the clients), each
// reading what read says (see Scope), and returns their handles in the
// order of t.Feeds, and a function that releases them all (and waits for
// the reflectors to stop).
func (t *Target) Acquire(setOpts reflector.SetOptions, read kube.Shape) ([]*reflector.Handle, func(), error) {
	newClient, err := t.newClients()
	if err != nil {
		return nil, nil, err
	}
	TuneGC(wholeObjects(read))
	setOpts.NewClient = newClient
	set := reflector.NewSet(setOpts)
	handles := make([]*reflector.Handle, 0, len(t.Feeds))
	for _, src := range t.Feeds {
		handles = append(handles, set.Acquire(src.Resource, t.Scope(src, read)))
	}
	release := func() {
		for _, h := range handles {
			h.Release()
		}
	}
	return handles, release, nil
}

// ForContext is t's flags for context name alone (contexts.Flags's config
// flags, warnings to streams), to resolve and read that context on its
// own: what t resolved is not kept.
func (t *Target) ForContext(name string, streams genericiooptions.IOStreams) Target {
	return Target{
		ConfigFlags: contexts.Flags(t.ConfigFlags, name, streams), AllNamespaces: t.AllNamespaces,
		LabelSelector: t.LabelSelector, FieldSelector: t.FieldSelector, ListMode: t.ListMode,
		NoDaemon: t.NoDaemon, SilenceTimeout: t.SilenceTimeout, Files: t.Files,
	}
}
