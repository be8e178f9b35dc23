package kube

import (
	"errors"
	"fmt"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/resource"
)

// ManifestOptions say which manifests to read and in which namespace:
// kubectl's -f, -k and -R, -n and -A.
type ManifestOptions struct {
	Files resource.FilenameOptions
	// Namespace is where an object without one is; Explicit says that -n
	// gave it, so that an object of another namespace is refused.
	Namespace     string
	Explicit      bool
	AllNamespaces bool
}

// ManifestObject is one object of the manifests: its resource, namespace
// ("" for a cluster-scoped one) and name; or Err, what kubectl get reports
// in its place (a namespaced object that names no namespace under -A).
type ManifestObject struct {
	Resource        Resource
	Namespace, Name string
	Err             error
}

// Manifests are the objects manifests hold, in their order, and what
// kubectl get reports of them and goes on from.
type Manifests struct {
	Objects []ManifestObject
	// Single is kubectl's "single item implied": one file (no directory,
	// no -R); if it holds one object, that is printed alone rather than
	// in a List, and no object of it if one cannot be read.
	Single bool
	// Misplaced are the objects in another namespace than an explicit
	// one; Unread the documents the resource builder could not read as
	// objects (an unknown kind).
	Misplaced, Unread []error
}

// ReadManifests reads the objects of the manifests opts names (files,
// directories, URLs, stdin, a kustomization) as kubectl get does, with
// cli-runtime's resource builder: each object's kind through getter's
// RESTMapper, its namespace from the manifest, or opts.Namespace when it
// has none. Nothing is fetched from the server. A manifest that cannot be
// found is the error.
func ReadManifests(getter genericclioptions.RESTClientGetter, opts ManifestOptions) (Manifests, error) {
	var m Manifests
	r := resource.NewBuilder(getter).
		Unstructured().
		NamespaceParam(opts.Namespace).DefaultNamespace().AllNamespaces(opts.AllNamespaces).
		FilenameParam(false, &opts.Files). // an explicit namespace is checked below (Misplaced)
		ContinueOnError().
		Flatten().
		Do()
	if err := r.Err(); err != nil {
		return m, err
	}
	infos, err := r.IntoSingleItemImplied(&m.Single).Infos()
	if err != nil {
		m.Unread = utilerrors.Flatten(asAggregate(err)).Errors()
	}
	for _, info := range infos {
		res := ResourceOf(info.Mapping)
		if res.Namespaced && info.Namespace == "" { // -A, and the manifest names none
			m.Objects = append(m.Objects, ManifestObject{Err: fmt.Errorf("no namespace set on resource %s %q", info.Mapping.Resource, info.Name)})
			continue
		}
		if opts.Explicit {
			if err := resource.RequireNamespace(opts.Namespace)(info, nil); err != nil {
				m.Misplaced = append(m.Misplaced, err)
				continue
			}
		}
		m.Objects = append(m.Objects, ManifestObject{Resource: res, Namespace: info.Namespace, Name: info.Name})
	}
	return m, nil
}

// asAggregate is err as an aggregate of errors (of one, if it is not one).
func asAggregate(err error) utilerrors.Aggregate {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		return agg
	}
	return utilerrors.NewAggregate([]error{err})
}
