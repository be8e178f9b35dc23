package kube

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/cli-runtime/pkg/resource"
)

// Arg is one kind as the user typed it and the names given for it, in
// order; no names means every object of the kind.
type Arg struct {
	Kind  string
	Names []string
}

// ArgsOptions is what ParseArgs needs besides the arguments.
type ArgsOptions struct {
	// Selector says a label or field selector was given; kubectl does not
	// combine one with names.
	Selector bool
	// ReplaceAliases expands categories ("all", those CRDs declare) in a
	// comma-separated list of kinds: cli-runtime's
	// resource.Builder.ReplaceAliases. Nil expands nothing.
	ReplaceAliases func(kinds string) string
	// Command is how the user invokes the command, its verb included, for
	// the examples in messages ("kubectl reflect watch"); empty, the
	// program's file name and "get", as cli-runtime says it.
	Command string
}

// ParseArgs reads the resource arguments of `kubectl get` as cli-runtime's
// resource.Builder does (ResourceTypeOrNameArgs), with its checks and
// messages, in its order:
//
//	KIND[,KIND...]                  every object of each kind; categories expanded
//	KIND NAME...                    those names of one kind (a category counts as its kinds)
//	KIND,KIND... NAME...            each name of each kind, kind by kind
//	KIND/NAME...                    those objects; categories are not expanded
//
// Mixing KIND/NAME with other arguments, several slashes, an empty kind
// or name around the slash, and names with a selector are refused. ParseArgs
// needs at least one argument; it asks no server anything, except through
// ReplaceAliases.
func ParseArgs(args []string, opts ArgsOptions) ([]Arg, error) {
	if len(args) == 0 {
		return nil, errors.New("no resource type given")
	}
	if _, err := resource.HasNames(args); err != nil {
		return nil, separateTypeError(err, opts.Command) // KIND/NAME beside other arguments
	}
	args = normalizeArgs(args)
	if strings.Contains(args[0], "/") { // HasNames saw all or none
		return parseTuples(args, opts)
	}
	kinds := args[0]
	if opts.ReplaceAliases != nil {
		kinds = opts.ReplaceAliases(kinds)
	}
	split := resource.SplitResourceArgument(kinds)
	names := args[1:]
	if len(names) == 0 {
		out := make([]Arg, len(split))
		for i, k := range split {
			out[i] = Arg{Kind: k}
		}
		return out, nil
	}
	switch {
	case opts.Selector:
		return nil, errors.New("name cannot be provided when a selector is specified")
	case len(split) > 1: // a category: several kinds stood for one
		return nil, errors.New("you must specify only one resource")
	}
	return []Arg{{Kind: split[0], Names: names}}, nil
}

// normalizeArgs turns `KIND,KIND NAME...` into KIND/NAME for each kind,
// then each name, as kubectl does before anything else.
func normalizeArgs(args []string) []string {
	if len(args) < 2 {
		return args
	}
	kinds := resource.SplitResourceArgument(args[0])
	if len(kinds) < 2 {
		return args
	}
	out := make([]string, 0, len(kinds)*(len(args)-1))
	for _, k := range kinds {
		for _, name := range args[1:] {
			out = append(out, k+"/"+name)
		}
	}
	return out
}

// parseTuples reads arguments that are all KIND/NAME.
func parseTuples(args []string, opts ArgsOptions) ([]Arg, error) {
	out := make([]Arg, 0, len(args))
	for _, a := range args {
		seg := strings.Split(a, "/")
		if len(seg) != 2 {
			return nil, errors.New("arguments in resource/name form may not have more than one slash")
		}
		kind, name := seg[0], seg[1]
		if kind == "" || name == "" || len(resource.SplitResourceArgument(kind)) != 1 {
			return nil, errors.New("arguments in resource/name form must have a single resource and name")
		}
		out = append(out, Arg{Kind: kind, Names: []string{name}})
	}
	if opts.Selector {
		return nil, errors.New("selectors and the all flag cannot be used when passing resource/name arguments")
	}
	return out, nil
}

// separateTypeError is cli-runtime's error for KIND/NAME beside other
// arguments with command, when set, in its examples instead of the
// program's file name and get (kubectl-reflect get, where the user typed
// kubectl reflect watch).
func separateTypeError(err error, command string) error {
	if command == "" {
		return err
	}
	return fmt.Errorf("there is no need to specify a resource type as a separate argument when passing "+
		"arguments in resource/name form (e.g. '%s resource/<resource_name>' instead of "+
		"'%s resource resource/<resource_name>'", command, command)
}
