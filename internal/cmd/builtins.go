package cmd

import (
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controllers"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controllers/configmapgenerator"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controllers/mirror"
)

// builtins is the registry of the controllers run-controller and crd know.
func builtins() *controllers.Registry {
	return controllers.NewRegistry(configmapgenerator.Builtin(), mirror.Builtin())
}
