package cli

import (
	"fmt"
	"slices"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
)

// resolveFiles reads the objects of the manifests -f or -k name as kubectl
// get does (kube.ReadManifests). Nothing is fetched: the objects are read
// by name from the reflectors' stores, as for KIND/NAME arguments. What
// kubectl get reports and goes on from is kept for get to report
// likewise: an object in another namespace than --namespace
// (t.Misplaced), one without a namespace under --all-namespaces (a target
// with its error, in its place), a document the builder cannot read
// (t.Unread).
func (t *Target) resolveFiles() error {
	var err error
	if t.Mapper, err = t.ConfigFlags.ToRESTMapper(); err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	m, err := kube.ReadManifests(t.ConfigFlags, kube.ManifestOptions{
		Files: t.Files, Namespace: t.Namespace, Explicit: t.ExplicitNamespace, AllNamespaces: t.AllNamespaces,
	})
	if err != nil {
		return err
	}
	t.Targets, t.Misplaced, t.Unread, t.FileSingle = t.Targets[:0], m.Misplaced, m.Unread, m.Single
	for _, obj := range m.Objects {
		if obj.Err != nil {
			t.Targets = append(t.Targets, Wanted{Err: obj.Err})
			continue
		}
		t.Targets = appendFileObject(t.Targets, Wanted{
			Target:    kube.Target{Resource: obj.Resource, Names: []string{obj.Name}},
			Namespace: obj.Namespace,
		})
	}
	t.index()
	return nil
}

// FirstFileError is the error of the first object of the manifests that
// cannot be read (see resolveFiles), in get's order, or nil.
func (t *Target) FirstFileError() error {
	if len(t.Misplaced) > 0 {
		return t.Misplaced[0]
	}
	for _, tg := range t.Targets {
		if tg.Err != nil {
			return tg.Err
		}
	}
	if len(t.Unread) > 0 {
		return t.Unread[0]
	}
	return nil
}

// appendFileObject appends w, an object of a manifest, to targets, merged
// into the last one when that is of the same resource and namespace (as
// ResolveArgs merges cm/a cm/b).
func appendFileObject(targets []Wanted, w Wanted) []Wanted {
	if n := len(targets); n > 0 && targets[n-1].Err == nil && targets[n-1].Feed() == w.Feed() {
		last := &targets[n-1]
		last.Names = append(slices.Clip(last.Names), w.Names...)
		return targets
	}
	return append(targets, w)
}
