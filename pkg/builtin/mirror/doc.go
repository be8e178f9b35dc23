// Package mirror is the mirror built-in controller: it copies Secrets and
// ConfigMaps across namespaces, driven by the annotations of emberstack's
// kubernetes-reflector (github.com/emberstack/kubernetes-reflector), so
// that its users switch to `kubectl reflect run-controller mirror` without
// editing an object.
//
// # How it runs
//
// Builtin returns the built-in; New builds two controllers on an Env,
// mirror-secrets and mirror-configmaps, each:
//   - For its kind in all namespaces: every object is a request, and a
//     request is reconciled as a source (plan.go's planFor is the whole
//     policy, a pure function of what the stores hold);
//   - Watches the same kind and scope with copyToSource: a copy (an object
//     with a reflects annotation) maps to its source, so an edited or
//     deleted copy reconciles its source. It reads the same reflector
//     and store as For: no second watch;
//   - Watches Namespaces with namespaceToSources: a namespace maps to the
//     sources that want an automatic copy in it or have one there, so a
//     namespace created later gets its copies.
//
// Reads come from the stores only (never a GET); an object that carries none
// of emberstack's annotations is stored as its metadata only (whether it
// stands where a copy would go is all a reconcile reads of it), so the
// cluster's other Secrets are not held in memory. Writes are server-side
// applies under one field manager (kubectl-reflect-mirror), forced as a
// controller's are (plus, when a copy holds keys someone else wrote, a
// merge patch that removes them), and skipped when the copy is already up
// to date (no write, so no hot loop between a source and its copies). An
// update and a deletion carry the resourceVersion (and, for a deletion,
// the UID) of the copy as the reconcile saw it, so an object that changed
// since is never written or deleted on a stale judgement. Objects that
// stand where a copy should be and are not mirrors are never written: a
// Warning event (NotAMirror) says so. With Env.Namespace set (-n NS) only
// the sources of NS are mirrored (controller.Options.Namespace: no object of
// another namespace is reconciled); every input still reads all namespaces,
// where the copies are. Like every controller's, its first reconcile waits
// for every store's first list (pkg/controller).
//
// # Compatibility with emberstack's reflector
//
// Read and honoured as emberstack does:
//   - reflection-allowed ("true" in any case) and
//     reflection-allowed-namespaces: a comma-separated list, each entry a
//     name or a regular expression that must match the whole namespace
//     name (emberstack's test: the first match is the whole name); omitted
//     or empty allows every namespace;
//   - reflection-auto-enabled and reflection-auto-namespaces (same list
//     syntax): an automatic copy, of the same name, in every namespace
//     other than the source's that both lists allow;
//   - reflection-allowed-namespaces-selector and
//     reflection-auto-namespaces-selector (emberstack's newer namespace
//     label selectors): a namespace matches its list OR its selector;
//   - reflects: NS/NAME on a destination (a manual copy, of any name, in
//     any namespace the source allows, its own included);
//   - written on every copy as emberstack writes them: reflects,
//     auto-reflects ("True"/"False"), reflected-version (the source's
//     resourceVersion) and reflected-at (UTC, .NET's round-trip format).
//     A user may reset reflected-version to "" to force a refresh, as
//     emberstack documents.
//
// What is copied, as emberstack: a Secret's data and, for a new copy, its
// type; a ConfigMap's data and binaryData. Not copied: labels, other
// annotations, immutable, owner references. An automatic copy is removed
// when its source is deleted, stops allowing reflection or auto-reflection,
// or its namespace stops matching. A manual copy whose source is deleted
// or does not allow its namespace is left as it is (emberstack logs it;
// here a disallowed one also gets a ReflectionNotPermitted Warning event).
// An object in an automatic target namespace that does not reflect the
// source is skipped and reported, never overwritten. A manual copy where an
// automatic one belongs becomes automatic, as with emberstack.
//
// Differences:
//   - regular expressions are Go's (RE2): an entry .NET reads but RE2 does
//     not (look-arounds, back-references) matches nothing and is reported
//     in an InvalidAnnotation Warning event on the source (emberstack
//     fails on it);
//   - label selectors are parsed by apimachinery (kubectl's syntax);
//   - a copy is compared with its source, not only by reflected-version: a
//     value edited or deleted on a copy is restored at once (emberstack
//     waits for the next change of the source);
//   - a copy's data is its source's, exactly, as emberstack's: server-side
//     apply removes the keys the mirror wrote that the source dropped, and
//     a JSON merge patch (the one write that is not an apply) removes the
//     keys someone else wrote on a copy, emberstack before a switch for
//     one;
//   - a Secret copy keeps its own type (immutable): a source whose type
//     changed is not recreated;
//   - copies in a terminating namespace are left to go with it;
//   - not implemented: the cert-manager extension of old emberstack
//     versions (Certificate annotations secret-reflection-allowed...; with
//     cert-manager >= 1.5, put the annotations in the Certificate's
//     secretTemplate, which works here too), and emberstack's other
//     targets (FortiOS, Ubiquiti, VMware, FreeNAS certificate pushes).
//
// The package knows the annotations and the kinds it copies; it knows
// nothing about terminals or flags: internal/cmd runs it.
package mirror
