package cli

import (
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// KindOf is res as pkg/output names and prints it.
func KindOf(res kube.Resource) *output.Kind {
	return &output.Kind{Kind: res.Kind, Group: res.GVR.Group, Version: res.GVR.Version, Resource: res.GVR.Resource, Namespaced: res.Namespaced}
}
