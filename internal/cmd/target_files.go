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
// be found fails the command. What kubectl get reports and goes on from is
// kept for get to report likewise: an object in another namespace than
// --namespace (t.misplaced), one without a namespace under
// --all-namespaces (a target with its error, in its place), a document
// the builder cannot read (t.unread).
func (t *target) resolveFiles() error {
	var err error
	if t.mapper, err = t.configFlags.ToRESTMapper(); err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	r := resource.NewBuilder(t.configFlags).
		Unstructured().
		NamespaceParam(t.namespace).DefaultNamespace().AllNamespaces(t.AllNamespaces).
		FilenameParam(false, &t.Files). // --namespace is checked below (misplaced)
		ContinueOnError().
		Flatten().
		Do()
	if err := r.Err(); err != nil {
		return err
	}
	infos, err := r.IntoSingleItemImplied(&t.fileSingle).Infos()
	t.targets, t.misplaced, t.unread = t.targets[:0], nil, nil
	if err != nil {
		t.unread = utilerrors.Flatten(asAggregate(err)).Errors()
	}
	for _, info := range infos {
		res := kube.ResourceOf(info.Mapping)
		if res.Namespaced && info.Namespace == "" { // -A, and the manifest names none
			t.targets = append(t.targets, wanted{err: fmt.Errorf("no namespace set on resource %s %q", info.Mapping.Resource, info.Name)})
			continue
		}
		if t.explicitNamespace {
			if err := resource.RequireNamespace(t.namespace)(info, nil); err != nil {
				t.misplaced = append(t.misplaced, err)
				continue
			}
		}
		t.targets = appendFileObject(t.targets, wanted{
			Target:    kube.Target{Resource: res, Names: []string{info.Name}},
			namespace: info.Namespace,
		})
	}
	t.index()
	return nil
}

// firstFileError is the error of the first object of the manifests that
// cannot be read (see resolveFiles), in get's order, or nil.
func (t *target) firstFileError() error {
	if len(t.misplaced) > 0 {
		return t.misplaced[0]
	}
	for _, tg := range t.targets {
		if tg.err != nil {
			return tg.err
		}
	}
	if len(t.unread) > 0 {
		return t.unread[0]
	}
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
	if n := len(targets); n > 0 && targets[n-1].err == nil && targets[n-1].source() == w.source() {
		last := &targets[n-1]
		last.Names = append(slices.Clip(last.Names), w.Names...)
		return targets
	}
	return append(targets, w)
}

// fileErrorLines words the errors of get -f as kubectl get prints them.
// Its resource builder returns the misplaced objects' errors one by one
// (a decorator outside its list of manifests), then what that list
// collected (NotFound and the like, in the manifests' order) as one
// nested aggregate; get adds a level for a table; kubectl's checkErr
// unwraps one aggregate of one, then prints an aggregate's errors a line
// each (a nested one as its Error(): one message bare, several in
// brackets) and a lone error with "error: ".
func fileErrorLines(misplaced, listed []error, table bool) []string {
	if len(misplaced) == 0 && len(listed) == 0 {
		return nil
	}
	errs := slices.Clip(misplaced)
	if len(listed) > 0 {
		errs = append(errs, utilerrors.NewAggregate(listed))
	}
	var err error = utilerrors.NewAggregate(errs)
	if len(errs) == 1 {
		err = errs[0]
	}
	if table {
		err = utilerrors.NewAggregate([]error{err})
	}
	if agg, ok := err.(utilerrors.Aggregate); ok && len(agg.Errors()) == 1 {
		err = agg.Errors()[0]
	}
	agg, ok := err.(utilerrors.Aggregate)
	if !ok {
		return []string{missingMessage(err, true)}
	}
	lines := make([]string, len(agg.Errors()))
	for i, e := range agg.Errors() {
		lines[i] = missingMessage(e, false)
	}
	return lines
}
