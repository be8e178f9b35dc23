package completion

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
)

// CompleteEvents completes --events, a comma-separated list of event types:
// each completion is the list so far plus a type it does not name yet.
func Events(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	typed := strings.Split(strings.ToLower(done), ",")
	var out []cobra.Completion
	for _, t := range []string{"applied", "deleted"} {
		if strings.HasPrefix(t, strings.ToLower(last)) && !slices.Contains(typed, t) {
			out = append(out, done+t)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// registerKubeconfigCompletion completes --context, --cluster and --user
// with the names the kubeconfig holds, as kubectl does.
func registerKubeconfigCompletion(root *cobra.Command, flags *genericclioptions.ConfigFlags) {
	names := func(pick func(kubeconfigNames) []string) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			raw, err := flags.ToRawKubeConfigLoader().RawConfig()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var n kubeconfigNames
			for name := range raw.Contexts {
				n.contexts = append(n.contexts, name)
			}
			for name := range raw.Clusters {
				n.clusters = append(n.clusters, name)
			}
			for name := range raw.AuthInfos {
				n.users = append(n.users, name)
			}
			list := pick(n)
			slices.Sort(list)
			return filterPrefix(list, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = root.RegisterFlagCompletionFunc("context", names(func(n kubeconfigNames) []string { return n.contexts }))
	_ = root.RegisterFlagCompletionFunc("cluster", names(func(n kubeconfigNames) []string { return n.clusters }))
	_ = root.RegisterFlagCompletionFunc("user", names(func(n kubeconfigNames) []string { return n.users }))
}

type kubeconfigNames struct{ contexts, clusters, users []string }

// completeTypeName completes KIND/NAME in the first argument: the names of
// that kind, each after the kind as typed, as kubectl completes cm/<TAB>.
func completeTypeName(c *cobra.Command, flags *genericclioptions.ConfigFlags, toComplete string) []cobra.Completion {
	kind, prefix, _ := strings.Cut(toComplete, "/")
	if kind == "" || strings.Contains(kind, ",") {
		return nil
	}
	ns := ""
	if all, _ := c.Flags().GetBool("all-namespaces"); !all {
		var err error
		if ns, _, err = flags.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil
		}
	}
	var out []cobra.Completion
	for _, name := range filterPrefix(listNames(c.Context(), flags, kind, ns), prefix) {
		out = append(out, kind+"/"+name)
	}
	return out
}

// CompleteBuiltins completes built-in names; with list, after commas too
// (NAME,NAME), and only those with a CRD otherwise.
func Builtins(r *builtin.Registry, list bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		prefix, last := "", toComplete
		if i := strings.LastIndex(toComplete, ","); list && i >= 0 {
			prefix, last = toComplete[:i+1], toComplete[i+1:]
		}
		var out []cobra.Completion
		for _, b := range r.All() {
			if !list && b.CRD == nil {
				continue
			}
			if strings.HasPrefix(b.Name, last) && !slices.Contains(strings.Split(prefix, ","), b.Name) {
				out = append(out, prefix+b.Name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
