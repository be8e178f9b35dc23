// Package kube is where kubectl-reflect meets the API server: it reads the
// resource arguments a user types as kubectl get does (args.go: KIND NAME...,
// KIND/NAME..., categories such as "all", with kubectl's refusals), resolves
// the kinds (cm, deploy.apps, deployments.v1.apps, CRD short names) through
// the RESTMapper the way kubectl does (resolve.go), and implements
// watch.Client[*object.Object] for any resource over REST (Client), decoding list answers and watch
// events straight into *object.Object without building maps. Both are read
// as streams: a LIST answer item by item as it arrives (list.go), a watch
// event by event, split at newlines (frames.go), from a buffer that holds one
// item at a time. LISTs ask for gzip and are unzipped with klauspost/compress
// on the read-ahead goroutine (inflate.go, readahead.go). A Client answered 404 finds its resource again through
// discovery (Client.Rediscover, RediscoverWith): a custom resource whose
// definition was deleted may come back serving another version. Client.Get
// reads one object, or its subresource, by name (get.go), for `get` where
// a list is refused and for --subresource. NewRESTClient speaks HTTP/1.1,
// with TCP keepalive probes that find a vanished peer in 45 seconds
// (transport.go): a watch then reads its own connection, which costs less
// CPU per event than HTTP/2's shared one.
//
// It exists apart from pkg/watch so that the watcher stays a pure state
// machine tested with scripted clients, and apart from the commands so that
// `get`, `watch` and the daemon share one client. It knows nothing about
// stores, printing or controllers.
package kube
