package completion

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Shell completion: cobra completes subcommands and flags; this file adds
// kinds (from the cached discovery) and object names (from one small LIST),
// and explains in `kubectl reflect completion --help` how completion reaches
// `kubectl reflect` through kubectl.

// completionNameLimit caps the names one completion lists.
const completionNameLimit = 100

// completionTimeout bounds the server requests of one completion.
const completionTimeout = 5 * time.Second

const completionLong = `Generate the autocompletion script for the specified shell.

Completion of "kubectl reflect ..." goes through kubectl (1.26 or later, with
kubectl's own completion set up): kubectl runs the executable
kubectl_complete-reflect from PATH, which runs "kubectl-reflect __complete".
The release archives ship it next to the plugin; put both on PATH.

The scripts generated here complete the plugin binary called directly, as
kubectl-reflect. See each sub-command's help for how to load them.
`

// Setup adds cobra's completion command with help that names
// "kubectl reflect", and completes --namespace with the server's namespaces.
func Setup(root *cobra.Command, flags *genericclioptions.ConfigFlags) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Long = completionLong
		c.RunE = noShell
		for _, shell := range c.Commands() {
			// Cobra's text runs "kubectl-reflect completion SHELL"; through
			// kubectl the same command is "kubectl reflect completion SHELL".
			shell.Long = strings.ReplaceAll(shell.Long, root.Name()+" completion", "kubectl reflect completion")
		}
	}
	_ = root.RegisterFlagCompletionFunc("namespace", func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		names := listNames(c.Context(), flags, "namespaces", "")
		return filterPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
	registerKubeconfigCompletion(root, flags)
}

// noShell refuses `completion` without a shell, as kubectl completion
// does, where cobra would print the help and exit 0 (an unknown shell is
// cobra's unknown command once the command runs).
func noShell(c *cobra.Command, _ []string) error {
	var shells []string
	for _, shell := range c.Commands() {
		if shell.IsAvailableCommand() {
			shells = append(shells, shell.Name())
		}
	}
	return fmt.Errorf("shell not specified; one of %s", strings.Join(shells, ", "))
}

// CompleteKindArgs completes `KIND[,KIND...] [NAME...]`: kinds for the
// first argument, then names of that kind (one LIST) for up to maxNames
// more arguments (-1: no limit), skipping names already typed.
func KindArgs(flags *genericclioptions.ConfigFlags, maxNames int) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 && strings.Contains(toComplete, "/") {
			return completeTypeName(c, flags, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		if len(args) == 0 {
			dc, err := flags.ToDiscoveryClient()
			if err != nil {
				cobra.CompDebugln("discovery: "+err.Error(), true)
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeKinds(dc, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		if strings.ContainsAny(args[0], ",/") || (maxNames >= 0 && len(args) > maxNames) {
			return nil, cobra.ShellCompDirectiveNoFileComp // names need one kind, given apart
		}
		if all, _ := c.Flags().GetBool("all-namespaces"); all {
			return nil, cobra.ShellCompDirectiveNoFileComp // a name needs one namespace
		}
		ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := slices.DeleteFunc(listNames(c.Context(), flags, args[0], ns), func(n string) bool {
			return slices.Contains(args[1:], n)
		})
		return filterPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeKinds completes the last kind of a comma-separated list: every
// completion is the list so far plus one kind the list does not name yet.
func completeKinds(dc discovery.DiscoveryInterface, toComplete string) []cobra.Completion {
	// The cached client answers from ~/.kube/cache; a group that fails
	// still leaves the others usable.
	lists, err := discovery.ServerPreferredResources(dc)
	if err != nil {
		cobra.CompDebugln("discovery: "+err.Error(), true)
	}
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	names := kube.TypedNames(lists)
	typed := map[string]bool{} // resources the list names already, in any form
	for _, t := range strings.Split(done, ",") {
		if i, ok := slices.BinarySearchFunc(names, t, func(k kube.TypedName, t string) int { return strings.Compare(k.Name, t) }); ok {
			typed[names[i].Resource] = true
		}
	}
	var out []cobra.Completion
	for _, k := range names {
		if strings.HasPrefix(k.Name, last) && !typed[k.Resource] {
			out = append(out, cobra.CompletionWithDesc(done+k.Name, k.Kind))
		}
	}
	return out
}

// listNames returns up to completionNameLimit names of kind in namespace
// with one LIST, or none when anything fails: completion stays quiet.
func listNames(ctx context.Context, flags *genericclioptions.ConfigFlags, kind, namespace string) []string {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completionTimeout)
	defer cancel()
	config, err := flags.ToRESTConfig()
	if err != nil {
		return nil
	}
	mapper, err := flags.ToRESTMapper()
	if err != nil {
		return nil
	}
	targets, err := kube.ResolveArgs(mapper, []kube.Arg{{Kind: kind}})
	if err != nil || len(targets) != 1 {
		return nil
	}
	rc, err := kube.NewRESTClient(config)
	if err != nil {
		return nil
	}
	page, err := kube.NewClient(rc, targets[0].Resource, kube.Scope{Namespace: namespace}).
		List(ctx, watch.ListRequest{Limit: completionNameLimit})
	if err != nil {
		cobra.CompDebugln("listing names: "+err.Error(), true)
		return nil
	}
	names := make([]string, 0, len(page.Items))
	for _, o := range page.Items {
		names = append(names, o.GetName())
	}
	return names
}

// filterPrefix keeps the names that start with prefix, as completions.
func filterPrefix(names []string, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
