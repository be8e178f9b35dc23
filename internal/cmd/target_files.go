package cmd

import (
	"errors"
	"fmt"
	"slices"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// resolveFiles reads the objects of the manifests -f or -k name (files,
// directories, URLs, stdin, a kustomization) as kubectl get does, with
// cli-runtime's resource builder: each object's kind through the server's
// RESTMapper, its namespace from the manifest, or the command's when it
// has none. Nothing is fetched: the objects are read by name from the
// reflectors' stores, as for KIND/NAME arguments. A manifest that cannot
// be read fails the command; an object that cannot be placed (another
// namespace than --namespace, none under --all-namespaces, an unknown
// kind) is kept in t.fileErrors and reported as kubectl get reports it,
// beside the others.
func (t *target) resolveFiles() error {
	var err error
	if t.mapper, err = t.configFlags.ToRESTMapper(); err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	r := resource.NewBuilder(t.configFlags).
		Unstructured().
		NamespaceParam(t.namespace).DefaultNamespace().AllNamespaces(t.AllNamespaces).
		FilenameParam(t.explicitNamespace, &t.Files).
		ContinueOnError().
		Flatten().
		Do()
	if err := r.Err(); err != nil {
		return err
	}
	infos, err := r.IntoSingleItemImplied(&t.fileSingle).Infos()
	t.targets, t.fileErrors = t.targets[:0], nil
	if err != nil {
		for _, e := range utilerrors.Flatten(asAggregate(err)).Errors() {
			t.fileErrors = append(t.fileErrors, fileError{e})
		}
	}
	for _, info := range infos {
		res := kube.ResourceOf(info.Mapping)
		if res.Namespaced && info.Namespace == "" { // -A, and the manifest names none
			t.fileErrors = append(t.fileErrors, fileError{fmt.Errorf("no namespace set on resource %s %q", info.Mapping.Resource, info.Name)})
			continue
		}
		t.targets = appendFileObject(t.targets, wanted{
			Target:    kube.Target{Resource: res, Names: []string{info.Name}},
			namespace: info.Namespace,
		})
	}
	t.index()
	return nil
}

// asAggregate is err as an aggregate of errors (of one, if it is not one).
func asAggregate(err error) utilerrors.Aggregate {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		return agg
	}
	return utilerrors.NewAggregate([]error{err})
}

// appendFileObject appends w, an object of a manifest, to targets, merged
// into the last one when that is of the same resource and namespace (as
// ResolveArgs merges cm/a cm/b).
func appendFileObject(targets []wanted, w wanted) []wanted {
	if n := len(targets); n > 0 && targets[n-1].source() == w.source() {
		last := &targets[n-1]
		last.Names = append(slices.Clip(last.Names), w.Names...)
		return targets
	}
	return append(targets, w)
}

// fileError is an object of a manifest that the command cannot read:
// kubectl get prints it bare among the errors under its tables.
type fileError struct{ error }

func (e fileError) Unwrap() error { return e.error }
