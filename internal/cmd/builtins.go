package cmd

import (
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/mirror"
)

// builtins is the registry of the controllers run-controller and crd know.
func builtins() *builtin.Registry {
	return builtin.NewRegistry(configmapgenerator.Builtin(), mirror.Builtin())
}
