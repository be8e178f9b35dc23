//go:build linux

package main

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// typedInformer is how one typed-informer cache kind talks to the API
// server.
type typedInformer struct {
	json      bool // JSON rather than the typed client's protobuf
	stripped  bool // managedFields stripped by a transform
	streaming bool // the streaming list (client-go's default) rather than a LIST, then a WATCH
}

// typedInformers are the cache kinds startTyped builds.
var typedInformers = map[cacheKind]typedInformer{
	cacheTyped:         {streaming: true},
	cacheTypedStripped: {stripped: true, streaming: true},
	cacheTypedJSON:     {json: true, streaming: true},
	cacheTypedList:     {},
	cacheTypedJSONList: {json: true},
}

// noStreamingList is a clientset whose informers fill their cache with a
// LIST, then a WATCH. client-go's reflector reads its WatchListClient gate
// once, when it is built, and turns the streaming list off for a client
// that says it does not support it
// (watchlist.DoesClientNotSupportWatchListSemantics): the same path as
// with the gate off (KUBE_FEATURE_WatchListClient=false), for this
// informer alone, without setting a process-wide gate between rounds.
type noStreamingList struct{ kubernetes.Interface }

// IsWatchListSemanticsUnSupported tells client-go's reflector to list.
func (noStreamingList) IsWatchListSemanticsUnSupported() bool { return true }

// startTyped builds a typed informer of the namespace's ConfigMaps as
// kind says, and returns once it has synced, or fails after limit. It
// fails too when the informer filled its cache by another path than its
// kind names: the requests its client sent are counted.
func startTyped(ctx context.Context, kind cacheKind, cfg *rest.Config, namespace string, limit time.Duration) (*syncedCache, error) {
	how := typedInformers[kind]
	cfg = rest.CopyConfig(cfg)
	if how.json {
		cfg.AcceptContentTypes, cfg.ContentType = "application/json", "application/json"
	}
	var sent listRequests
	cfg.Wrap(sent.wrap)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("clientset: %w", err)
	}
	var client kubernetes.Interface = cs
	if !how.streaming {
		client = noStreamingList{cs}
	}
	opts := []informers.SharedInformerOption{informers.WithNamespace(namespace)}
	if how.stripped {
		opts = append(opts, informers.WithTransform(stripManagedFields))
	}
	f := informers.NewSharedInformerFactoryWithOptions(client, 0, opts...)
	c, err := startInformer(ctx, f, f.Core().V1().ConfigMaps().Informer(), limit)
	if err != nil {
		return nil, err
	}
	if err := sent.check(how.streaming); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// listRequests counts the requests that can fill an informer's cache:
// LISTs, and WATCHes that ask for the initial events (a streaming list).
type listRequests struct{ lists, streams atomic.Int32 }

// wrap is a rest.Config's WrapTransport counting into l.
func (l *listRequests) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		q := req.URL.Query()
		switch {
		case req.Method != http.MethodGet:
		case q.Get("watch") != "true" && q.Get("watch") != "1":
			l.lists.Add(1)
		case q.Get("sendInitialEvents") == "true":
			l.streams.Add(1)
		}
		return rt.RoundTrip(req)
	})
}

// check says whether a cache was filled the way wanted: by a streaming
// list and no LIST, or by a LIST and no streaming list.
func (l *listRequests) check(streaming bool) error {
	lists, streams := l.lists.Load(), l.streams.Load()
	if streaming && (streams == 0 || lists > 0) || !streaming && (lists == 0 || streams > 0) {
		want := "a LIST, then a WATCH"
		if streaming {
			want = "a streaming list"
		}
		return fmt.Errorf("want %s; the cache sent %d LISTs and %d WATCHes with sendInitialEvents=true", want, lists, streams)
	}
	return nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
