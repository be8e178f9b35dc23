package cli

import (
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// oneShotAttempts is how many times in a row get tries a failing request
// before it gives up: a blip (a restarting apiserver, a 429) is ridden out,
// a server that is down is reported within seconds, as kubectl does.
const oneShotAttempts = 3

// OneShotOptions are the watcher options of a read that must end (get):
// --request-timeout bounds every request, a request that timed out (ours or
// the server's) is not tried again, as kubectl does not, a failure that
// persists for oneShotAttempts tries ends it, and a 404 is an answer.
func (t *Target) OneShotOptions() watch.Options {
	opts := t.watcherOptions()
	opts.Retry = watch.RetryPolicy{MaxFailures: oneShotAttempts, GiveUpOnTimeout: true}
	opts.RequestTimeout = t.Config.Timeout
	// Retried quietly: the few seconds of retries are not worth a line
	// each, and the last error, when get gives up, says it all.
	opts.OnError = func(error, time.Duration) {}
	return opts
}

// StreamOptions are the watcher options of a stream that never ends on its
// own (watch): --request-timeout bounds each request but not the open
// watch (kubectl's `get -w` lets it cut the watch and exits 0 when it
// passes), and a kind that disappears (its CRD deleted) is retried with
// backoff until it is back, as client-go's reflector does.
func (t *Target) StreamOptions() watch.Options {
	opts := t.watcherOptions()
	opts.Retry = watch.RetryPolicy{NotFound: true}
	opts.RequestTimeout = t.Config.Timeout
	return opts
}
