// Package pkg is the map of kubectl-reflect's Go library: which packages a Go
// program may import, what each is for, what they promise, and which
// packages are only this binary's machinery.
//
// The library is the reflector model of Kubernetes controllers (kube-rs's
// watcher, reflector and controller; client-go's reflector and workqueue)
// over any kind, with typed events. The data flows one way:
//
//	API server -> kube.Client -> watch.Watcher -> store.Store -> subscribers (output, controller)
//
// # The library
//
// These packages are for import. Each has a doc.go that says what it owns
// and what it does not know; watch, store, controller and output have
// runnable examples (go doc -all, or pkg.go.dev) that go test checks, and
// examples/watchconfigmaps is a program built on them alone, run against a
// real API server by test/e2e.
//
// Watch: pkg/watch turns LIST and WATCH of one resource into a never-ending
// stream of typed events (watch.Event[T]: Init, InitApply, InitDone, Apply,
// Delete, Bookmark) through a Watcher, an explicit state machine that
// resumes, relists on 410 Gone and backs off. It is generic over the object
// type: anything a watch.Client[T] decodes, and watch.Map makes a Client of
// typed objects out of one of *object.Object.
//
// Client: pkg/kube is a watch.Client of *object.Object for any resource over
// REST (kube.NewClient), and resolves the kinds a user types the way kubectl
// does (kube.ResolveArgs).
//
// Object: pkg/object is the object every package shares: identity,
// resourceVersion, the JSON as the server sent it (pruned, maybe packed) and
// its printer cells, without decoding it into maps.
//
// Store: pkg/store is one resource's current state, fed by one writer (a
// Watcher's events, through Store.Apply), read by any number of readers and
// subscribers (Coalescing or Ordered), none of which ever slows the writer or
// another. store.Store[T] holds any object with a namespace, a name and a
// resourceVersion: *object.Object or a typed one such as *corev1.Pod.
//
// Reflector: pkg/reflector runs one watcher and store per resource and scope,
// shared by every consumer of a process (reflector.Set, reflector.Handle):
// one LIST and one WATCH per kind on the wire however many consumers.
//
// Controller: pkg/controller runs level-based controllers on a Set's shared
// stores: a Builder (For, Owns, Watches), a workqueue with per-object backoff,
// metrics under controller-runtime's names, health endpoints, leader
// election.
//
// Output: pkg/output prints streams of APPLIED and DELETED events, and the
// objects of a get, in kubectl's formats, byte for byte; pkg/flatten makes
// the one ordered stream of several kinds' stores that it prints.
//
// # The promise
//
// The module is at v0: the library's exported names may change in a minor
// release, never in a patch release, and each change is named in
// CHANGELOG.md with what replaces it. Behaviour written in a doc comment is
// the contract and is tested: a watcher's resume and relist rules, a store's
// queue bounds, a printer's bytes (kubectl's). Nothing is promised about what
// a doc comment does not say (log lines, metrics beyond their names, the
// order of goroutines).
//
// # The machinery
//
// These packages are exported because the binary is built from them, not
// for import: they may change or move under internal/ in any release.
//
//   - pkg/serve: the read-only, API-compatible HTTP handler over reflectors.
//   - pkg/daemon: the `serve` process, its files, credentials and contexts;
//     it assembles the others and owns no feature.
//   - pkg/history: the record of changes on disk (`serve --record`, `get
//     --at`, `history`); pkg/history/recording: a daemon's recording into
//     it, and the answers it gives pkg/serve from it.
//   - pkg/merge: the merged view of several clusters' APIs.
//   - pkg/manager: the controller manager of run-controller and serve.
//   - pkg/builtin: the built-in controllers and their registry.
//
// The command line lives in internal/cmd. No package under pkg/ imports
// internal/ (pkg/imports_test.go checks it); what pkg/ packages share
// without promising it lives under pkg/internal.
package pkg
