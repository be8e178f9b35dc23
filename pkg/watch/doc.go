// Package watch turns LIST and WATCH of one Kubernetes resource into a typed,
// never-ending stream of events, the way a reflector sees it.
//
// A Watcher is an explicit state machine (see State): it lists (in one LIST,
// in pages, or as a streaming list ended by the k8s.io/initial-events-end
// bookmark; see ListMode), then watches
// from the list's resourceVersion, resumes from the last resourceVersion it saw
// when a watch ends, relists on 410 Gone, and backs off exponentially with
// jitter on errors (honouring Retry-After on 429). Options.Retry (a
// RetryPolicy) says which errors end Run with a *TerminalError: by default
// those retrying cannot fix (403, 404, a bad request, a second 401 in a row;
// the first is retried because credential plugins refresh on it). A watcher
// meant to outlive its resource retries 404 too (RetryPolicy.NotFound); a
// one-shot read gives up after a few failures (RetryPolicy.MaxFailures) or
// at the first timeout (RetryPolicy.GiveUpOnTimeout).
// Options.RequestTimeout bounds each LIST and the opening of each watch,
// never an open watch. Options.SilenceTimeout finds an open watch whose
// connection died without closing (silence.go): nothing for 90s after the
// server's bookmarks flowed, or no end a tenth past the watch's
// timeoutSeconds; it resumes on a new connection, as after the server's end
// of the watch.
//
// Events form a closed set: Init, InitApply, InitDone, Apply, Delete and
// Bookmark. Init..InitDone bracket a (re)list; a consumer that keeps state
// buffers InitApply objects and swaps them in at InitDone (pkg/store does).
// Applied adapts a function of objects to the stream, for consumers that
// only want the objects listed and applied. Map (mapped.go) converts a
// Client's objects, so that a watcher of pkg/kube's *object.Object yields
// typed events (Event[*corev1.Pod]); the adapter costs about 20 ns of CPU
// per event and no allocation (BenchmarkMap), the conversion what it does.
//
// This package knows the API server's protocol and nothing about stores,
// printing or controllers. It never decodes objects itself: a Client (see
// pkg/kube for the REST one) does, so the watcher is generic over the object
// type and tests drive it with a scripted Client.
//
// Its name is the protocol it drives, a LIST then WATCHes: `watch` is the
// command (internal/cmd/watch), WATCH the API verb, and a watch event what
// the server sends on one.
package watch
