// Package configmapgenerator is the configmap-generator built-in controller
// and its CRD (kubectl-reflect.io/v1alpha1 ConfigMapGenerator, short name
// cmg): each generator makes one ConfigMap in its namespace from its spec
// (data, content stored under the key "content", labels, annotations,
// immutable), named after the generator or, with nameSuffixHash, NAME-HASH
// after kustomize's content hash (k8s.io/kubectl's ConfigMapHash), older
// generated ConfigMaps pruned.
//
// The reconciler reads the generator (For) and its ConfigMaps (Owns) from
// the process's shared stores (a ConfigMap that neither a generator
// controls nor this field manager wrote is kept as metadata only: whether
// it exists and who controls it is all the reconciler reads of it) and
// writes with server-side apply under the
// field manager kubectl-reflect-configmap-generator: the ConfigMap through
// client-go's typed apply configurations, with a controller ownerReference
// so that kube-controller-manager's garbage collector deletes it with its
// generator; the status (observedGeneration, the Ready condition, the
// generated name) through the status subresource. An edited or deleted
// ConfigMap triggers its generator and is restored: what the generator
// wrote (its keys, labels, annotations, the ownerReference) comes back; keys
// or labels others added are theirs under server-side apply and stay. A
// ConfigMap of the name without a controller reference that this field
// manager applied is the generator's own, orphaned, and is adopted. A write whose result is
// already stored is skipped (the fields this manager owns are compared with
// the desired ones), so a settled generator costs no API call; and a
// reconcile of a generator and ConfigMap still where the last reconcile
// that ended well left them (the one its own status write triggers) is
// skipped before the generator is decoded.
//
// An invalid spec (a data key that is not a valid ConfigMap key, "content"
// both in data and content) or a ConfigMap of the generated name that the
// generator does not control sets Ready=False with a reason, emits a Warning
// Event and ends the reconcile with a Terminal error: no retry loop, and the
// foreign ConfigMap is never written. A ConfigMap of that name is watched,
// so its deletion reconciles the generator again.
//
// An immutable ConfigMap whose content changes is replaced: with
// nameSuffixHash a new name (the old one pruned), else deleted and created
// again.
//
// Files: crd.yaml (the CRD, embedded), types.go (spec and status),
// desired.go (the pure parts: validation, the desired ConfigMap and its
// name, what to prune, the status), reconcile.go (the reconciler),
// applies.go (what the reconciler remembers of its own applies and of
// where its last reconcile left each generator, so that a ConfigMap it
// wrote last is not compared field by field again, nor a generator it
// left reconciled again),
// builtin.go (the builtin.Spec).
package configmapgenerator
