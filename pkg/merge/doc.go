// Package merge is the merged read view of several clusters: one
// http.Handler that answers the Kubernetes API's reads from every cluster
// at once, as `kubectl reflect serve --context a,b` serves it (the
// "merged" context of its kubeconfig) over the daemons of its contexts.
//
// Why a package: pkg/serve answers one cluster's API from its stores;
// this one knows nothing of stores, only the API's wire format, and asks
// each cluster's API (a daemon, or any API server) over HTTP, so that the
// view keeps every semantics a daemon has (selectors, Tables, streaming
// lists, bookmarks, 410) without a second implementation of them.
//
//   - GET of one object: the first cluster's, in the clusters' order, that
//     has it (every cluster is asked at once).
//   - LIST: every cluster's items, in the clusters' order, each annotated
//     with ContextAnnotation (kubectl-reflect.io/context: its cluster's
//     name); a Table has a Context column first. A list is whole (limit is
//     ignored, as a server may).
//   - WATCH: every cluster's stream as one. Each object's
//     metadata.resourceVersion is a composite Version, the position of
//     every stream after it, so that a client that resumes from the last
//     resourceVersion it read misses and repeats nothing; bookmarks carry
//     it too, and a streaming list's initial-events-end bookmark comes once
//     every cluster has sent its own. A watch ends when any cluster's
//     stream ends (its client watches again) or sends an ERROR, passed on.
//   - resourceVersion: "" and "0" are sent to every cluster as they are; a
//     Version to each cluster as its position; anything else is 400 Bad
//     Request, and a Version that lacks a cluster's position is 410 Gone
//     (the client lists again, as after a 410 of one server).
//   - Discovery, /version and /openapi are the first cluster's; writes are
//     405. A cluster's error is the view's, its message after "context
//     NAME: "; a cluster that does not answer is 503.
//
// Two clusters may hold objects of one namespace and name: the view lists
// both, told apart by their annotation alone. A client that keys objects
// by namespace/name (an informer's store, kubectl's -o name) keeps one of
// them: the one of the last event.
package merge
