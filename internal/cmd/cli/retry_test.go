package cli

import (
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// TestRetryOptions: get gives up (after a few tries, at once on a timeout,
// on a 404) and retries quietly; watch retries everything transient and a
// 404 forever, reporting each retry. Both bound requests by
// --request-timeout and keep --list-mode.
func TestRetryOptions(t *testing.T) {
	tg := &Target{ListMode: "paged", Config: &rest.Config{Timeout: 2 * time.Second}}
	get, stream := tg.OneShotOptions(), tg.StreamOptions()
	if want := (watch.RetryPolicy{MaxFailures: oneShotAttempts, GiveUpOnTimeout: true}); get.Retry != want {
		t.Errorf("get: Retry = %+v, want %+v", get.Retry, want)
	}
	if want := (watch.RetryPolicy{NotFound: true}); stream.Retry != want {
		t.Errorf("watch: Retry = %+v, want %+v", stream.Retry, want)
	}
	for name, opts := range map[string]watch.Options{"get": get, "watch": stream} {
		if opts.RequestTimeout != 2*time.Second || opts.List != watch.ListPaged {
			t.Errorf("%s: RequestTimeout %v, List %v; want 2s and paged", name, opts.RequestTimeout, opts.List)
		}
	}
	if get.OnError == nil || stream.OnError != nil {
		t.Errorf("get must retry quietly (its own OnError), watch must leave OnError to the reporter's hooks")
	}
}
