package contexts

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Names reads the contexts a command reads when it reads several:
// kubectl's --context given a comma-separated list of the kubeconfig's
// contexts, or every context of the kubeconfig with all (--all-contexts),
// in the kubeconfig's order of names (sorted). It returns nil when the
// command reads one context (--context names one, or none: the current
// one), which it then reads as before, byte for byte. An unknown name, a
// name given twice or an empty one is an error naming it and the contexts
// that exist.
func Names(flags *genericclioptions.ConfigFlags, all bool) ([]string, error) {
	given := ""
	if flags.Context != nil {
		given = *flags.Context
	}
	if !all && !strings.Contains(given, ",") {
		return nil, nil
	}
	if all && given != "" {
		return nil, errors.New("--all-contexts and --context are exclusive: give one")
	}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	known := slices.Sorted(maps.Keys(raw.Contexts))
	if all {
		if len(known) == 0 {
			return nil, errors.New("--all-contexts: the kubeconfig has no context")
		}
		return known, nil
	}
	var names []string
	for name := range strings.SplitSeq(given, ",") {
		switch {
		case name == "":
			return nil, fmt.Errorf("--context %q: a context name is empty", given)
		case slices.Contains(names, name):
			return nil, fmt.Errorf("--context %q: context %q is given twice", given, name)
		case !slices.Contains(known, name):
			return nil, fmt.Errorf("context %q not found in the kubeconfig; its contexts are: %s", name, strings.Join(known, ", "))
		}
		names = append(names, name)
	}
	return names, nil
}

// Flags is flags for context name alone: every flag as given (they
// apply to each context, as kubectl applies them to its one), the
// namespace the context's own unless -n is given, and clients, discovery
// and credentials of that context's cluster and user, resolved as kubectl
// resolves them (exec and auth plugins included). streams receives the
// RESTMapper's warnings, as the command's own flags send them.
func Flags(flags *genericclioptions.ConfigFlags, name string, streams genericiooptions.IOStreams) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true).WithWarningPrinter(streams)
	f.CacheDir, f.KubeConfig = flags.CacheDir, flags.KubeConfig
	f.ClusterName, f.AuthInfoName, f.Namespace, f.APIServer = flags.ClusterName, flags.AuthInfoName, flags.Namespace, flags.APIServer
	f.TLSServerName, f.Insecure, f.CertFile, f.KeyFile, f.CAFile = flags.TLSServerName, flags.Insecure, flags.CertFile, flags.KeyFile, flags.CAFile
	f.BearerToken, f.Impersonate, f.ImpersonateUID = flags.BearerToken, flags.Impersonate, flags.ImpersonateUID
	f.ImpersonateGroup, f.ImpersonateUserExtra = flags.ImpersonateGroup, flags.ImpersonateUserExtra
	f.Username, f.Password, f.Timeout = flags.Username, flags.Password, flags.Timeout
	f.DisableCompression, f.ProxyURL, f.WrapConfigFn = flags.DisableCompression, flags.ProxyURL, flags.WrapConfigFn
	f.Context = &name
	return f
}
