package serve

import (
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
)

// serveControllers are serve's --controllers: built-in controllers (the
// ones run-controller runs, by the same manager) run in the daemon on its
// reflector Set, so that a kind the daemon serves and a controller reads
// is one watch. They run in every namespace, as the daemon caches (in the
// namespace of -n, with it).
type serveControllers struct {
	// Controllers is the --controllers list, NAME[,NAME...].
	Controllers string
	// Quiet prints no line per reconcile.
	Quiet bool

	registry *builtin.Registry // the built-ins it may name
	builtins []builtin.Spec
	signals  chan os.Signal // nil: the process's (see manager.HandleSignals)
}

func (sc *serveControllers) addFlags(f *pflag.FlagSet) {
	f.StringVar(&sc.Controllers, "controllers", "", "Run these built-in controllers in the daemon, on its caches, in every namespace (-n: in its namespace; NAME[,NAME...]; see 'kubectl reflect run-controller --list'); the kinds they read are served too")
	f.BoolVarP(&sc.Quiet, "quiet", "q", false, "Print no line per reconcile of --controllers")
}

// complete looks the controllers up, and adds the kinds they read to
// args (serve's KIND[,KIND...]): unknown names fail here, before anything
// starts.
func (sc *serveControllers) complete(args []string) ([]string, error) {
	if sc.Controllers == "" {
		return args, nil
	}
	var err error
	if sc.builtins, err = sc.registry.Select(sc.Controllers); err != nil {
		return nil, err
	}
	var reads []string
	for _, b := range sc.builtins {
		reads = append(reads, b.Reads...)
	}
	return withKinds(args, reads), nil
}

// withKinds adds kinds to the KIND[,KIND...] argument; arguments that name
// objects are left as they are (serve refuses them).
func withKinds(args, kinds []string) []string {
	switch {
	case len(kinds) == 0:
		return args
	case len(args) == 0:
		return []string{strings.Join(kinds, ",")}
	case len(args) == 1 && !strings.Contains(args[0], "/"):
		return []string{args[0] + "," + strings.Join(kinds, ",")}
	}
	return args
}
