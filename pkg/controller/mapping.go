package controller

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// requests maps an object of in (its current version, or its last one
// when it was deleted) to the root requests it concerns: itself for For,
// the root its controller ownerReference names for Owns (none if that
// reference is missing or of another kind), what the mapper says for
// Watches.
func (in *Input) requests(root kube.Resource, obj *object.Object) []Request {
	switch in.role {
	case RoleFor:
		return []Request{store.KeyOf(obj)}
	case RoleOwns:
		if req, ok := controllerOwner(root, obj); ok {
			return []Request{req}
		}
		return nil
	case RoleWatches:
		return in.mapper(obj)
	}
	return nil
}

// controllerOwner reads obj's controller ownerReference (controller: true)
// from its JSON, without decoding the rest, and returns the root it names
// if it is of root's group and kind. An owner is in its child's namespace,
// or cluster-scoped.
func controllerOwner(root kube.Resource, obj *object.Object) (Request, bool) {
	refs := gjson.GetBytes(obj.JSON(), "metadata.ownerReferences")
	var req Request
	found := false
	refs.ForEach(func(_, ref gjson.Result) bool {
		if !ref.Get("controller").Bool() {
			return true
		}
		found = ref.Get("kind").String() == root.Kind && groupOf(ref.Get("apiVersion").String()) == root.GVR.Group
		if found {
			req = Request{Name: ref.Get("name").String()}
			if root.Namespaced {
				req.Namespace = obj.Namespace
			}
		}
		return false // at most one controller reference
	})
	return req, found && req.Name != ""
}

// groupOf is the group of an apiVersion ("apps/v1" is apps, "v1" the core
// group "").
func groupOf(apiVersion string) string {
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return group
}
