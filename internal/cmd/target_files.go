package cmd

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
// (t.misplaced), one without a namespace under --all-namespaces (a target
// with its error, in its place), a document the builder cannot read
// (t.unread).
func (t *target) resolveFiles() error {
	var err error
	if t.mapper, err = t.configFlags.ToRESTMapper(); err != nil {
		return fmt.Errorf("reading the server's resource types: %w", err)
	}
	m, err := kube.ReadManifests(t.configFlags, kube.ManifestOptions{
		Files: t.Files, Namespace: t.namespace, Explicit: t.explicitNamespace, AllNamespaces: t.AllNamespaces,
	})
	if err != nil {
		return err
	}
	t.targets, t.misplaced, t.unread, t.fileSingle = t.targets[:0], m.Misplaced, m.Unread, m.Single
	for _, obj := range m.Objects {
		if obj.Err != nil {
			t.targets = append(t.targets, wanted{err: obj.Err})
			continue
		}
		t.targets = appendFileObject(t.targets, wanted{
			Target:    kube.Target{Resource: obj.Resource, Names: []string{obj.Name}},
			namespace: obj.Namespace,
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
