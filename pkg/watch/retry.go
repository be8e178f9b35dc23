package watch

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// RetryPolicy says which failed attempts Run retries. An attempt is one step
// of the protocol: a LIST page, opening a watch, reading its next event.
//
// Whatever the policy, an error from the Handler ends Run as it is, and 410
// Gone relists. Of the server's errors, these end Run with a *TerminalError
// because retrying cannot fix them: 403, 400, 422, 405, 406, 415, a second
// 401 in a row (the first is retried: credential plugins refresh a token
// only after a request got 401), and 404 unless NotFound is set. Everything
// else (5xx, 429, connection errors, timeouts) is retried with backoff.
//
// The zero value retries every transient error forever and ends Run on 404.
type RetryPolicy struct {
	// NotFound retries 404 Not Found with backoff, as client-go's reflector
	// does, instead of ending Run: a watcher meant to outlive its resource
	// keeps trying while a CustomResourceDefinition is deleted and created
	// again, and reads the resource when it is back. A one-shot read leaves
	// it off: a 404 is then its answer.
	NotFound bool
	// MaxFailures ends Run with a *TerminalError wrapping the last error
	// once this many attempts in a row have failed (0: no limit), so that a
	// one-shot read gives up in bounded time. An attempt that makes progress
	// (a page, an event) starts the count over.
	MaxFailures int
	// GiveUpOnTimeout ends Run at a request that timed out (the server's
	// 504, or Options.RequestTimeout passing) instead of retrying it: a
	// one-shot read has then waited as long as it was willing to, and kubectl
	// does not try again either.
	GiveUpOnTimeout bool
}

// retries reports whether Run retries err, the failures-th failed attempt
// in a row; prev is the failure before it in the same row (nil if none).
func (p RetryPolicy) retries(err error, failures int, prev error) bool {
	if p.MaxFailures > 0 && failures >= p.MaxFailures {
		return false
	}
	switch {
	case apierrors.IsUnauthorized(err):
		return prev == nil || !apierrors.IsUnauthorized(prev)
	case apierrors.IsNotFound(err):
		return p.NotFound
	case isTimeout(err):
		return !p.GiveUpOnTimeout
	}
	return !isPermanent(err)
}
