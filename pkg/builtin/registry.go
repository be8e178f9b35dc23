package builtin

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
)

// Env is what a built-in controller is built on: the process's shared
// reflectors, the scope it runs in, clients for its writes, and the
// options of every controller of the run.
type Env struct {
	// Set is the process's shared reflector set: two controllers reading
	// the same kind share one watch.
	Set *reflector.Set
	// Namespace limits the controller to one namespace; "" is all.
	Namespace string
	// Kube and Dynamic write: server-side apply under FieldManager.
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	// FieldManager prefix; a controller's field manager is
	// FieldManager + "-" + its name unless it says otherwise.
	FieldManager string
	// DryRun makes every write a server-side dry run.
	DryRun bool
	// Recorder emits Kubernetes Events (events.k8s.io/v1).
	Recorder events.EventRecorder
	// Options are every controller's runner options.
	Options controller.Options
}

// Scope is the kube.Scope of env's namespace.
func (env Env) Scope() kube.Scope { return kube.Scope{Namespace: env.Namespace} }

// Rule is one RBAC rule a built-in needs.
type Rule struct {
	Group     string
	Resources []string
	Verbs     []string
}

// Spec is one built-in controller: what it is, what it reads and writes, and how to build it.
type Spec struct {
	Name        string
	Description string
	// Reads and Writes name the resources it reads and writes, for --list.
	Reads, Writes []string
	// Rules are the RBAC rules it needs (deploy/ and its test hold them).
	Rules []Rule
	// CRD is the CustomResourceDefinition it reconciles, as YAML; nil if
	// it needs none.
	CRD []byte
	// New builds the built-in's controllers on env (mirror is one per
	// kind it copies); their Run starts them.
	New func(ctx context.Context, env Env) ([]*controller.Controller, error)
}

// Registry is a set of built-ins, by name. internal/cmd builds it from
// the subpackages' Builtin functions.
type Registry struct{ builtins []Spec }

// NewRegistry returns the registry of bs.
func NewRegistry(bs ...Spec) *Registry {
	out := slices.Clone(bs)
	slices.SortFunc(out, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
	return &Registry{builtins: out}
}

// All returns the built-ins, by name.
func (r *Registry) All() []Spec { return slices.Clone(r.builtins) }

// Lookup returns the built-in called name.
func (r *Registry) Lookup(name string) (Spec, bool) {
	i := slices.IndexFunc(r.builtins, func(b Spec) bool { return b.Name == name })
	if i < 0 {
		return Spec{}, false
	}
	return r.builtins[i], true
}

// Select returns the built-ins a comma-separated list names, each once,
// in the order given: `run-controller NAME[,NAME...]` and `serve
// --controllers`.
func (r *Registry) Select(list string) ([]Spec, error) {
	var out []Spec
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("empty controller name in %q", list)
		}
		b, ok := r.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown controller %q; see 'kubectl reflect run-controller --list'", name)
		}
		if !slices.ContainsFunc(out, func(x Spec) bool { return x.Name == name }) {
			out = append(out, b)
		}
	}
	return out, nil
}
