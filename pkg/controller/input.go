package controller

import (
	"encoding/json"
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// InputRole is how an Input maps its objects to root Requests.
type InputRole uint8

const (
	// RoleFor: the root kind; an object maps to itself.
	RoleFor InputRole = iota + 1
	// RoleOwns: a child kind; an object maps to the root named by its
	// controller ownerReference, if that reference is of the root kind.
	RoleOwns
	// RoleWatches: any other kind; an object maps through a Mapper.
	RoleWatches
)

// Input is a controller's read-only view of one shared store: its root kind
// (For), a kind it owns (Owns) or a kind it watches (Watches). Reconcilers
// read the current state through it. Its reads are safe for concurrent use
// and answer from the store as the reflector wrote it last; they are
// complete once the controller is ready (every Input synced), before which
// it runs no reconcile.
type Input struct {
	resource kube.Resource
	scope    kube.Scope
	role     InputRole
	mapper   Mapper // RoleWatches only

	handle *reflector.Handle // set by Build, released when Run returns
}

// Resource is the resource the input reads.
func (in *Input) Resource() kube.Resource { return in.resource }

// Scope is the scope the input reads.
func (in *Input) Scope() kube.Scope { return in.scope }

// Role is how the input maps objects to requests.
func (in *Input) Role() InputRole { return in.role }

// Get returns the stored object under k.
func (in *Input) Get(k store.Key) (*object.Object, bool) {
	if in.handle == nil {
		return nil, false
	}
	return in.handle.Get(k)
}

// List returns every stored object in the input's scope.
func (in *Input) List() []*object.Object {
	if in.handle == nil {
		return nil
	}
	return in.handle.List()
}

// InNamespace returns the stored objects of namespace ns in the input's
// scope, sorted by name, from the store's namespace index: its cost is that
// of the namespace, not of every object the input holds.
func (in *Input) InNamespace(ns string) []*object.Object {
	if in.handle == nil {
		return nil
	}
	return in.handle.InNamespace(ns)
}

// Handle is the shared reflector the input reads; nil before Build.
func (in *Input) Handle() *reflector.Handle { return in.handle }

// Decode decodes o's JSON into a new T (a typed API object such as
// corev1.ConfigMap, or a controller's own spec type).
func Decode[T any](o *object.Object) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(o.JSON(), v); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", store.KeyOf(o), err)
	}
	return v, nil
}
