package watch

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TerminalError ends Run: an error that Options.Retry does not retry, because
// retrying cannot fix it (the user may not list or watch the resource, the
// resource does not exist, the request is invalid) or because the watcher
// gave up after RetryPolicy.MaxFailures failures in a row.
type TerminalError struct{ Err error }

func (e *TerminalError) Error() string { return e.Err.Error() }
func (e *TerminalError) Unwrap() error { return e.Err }

// IsTerminal reports whether err is, or wraps, a TerminalError.
func IsTerminal(err error) bool {
	var t *TerminalError
	return errors.As(err, &t)
}

// handlerError marks an error returned by the Handler so that Run returns it
// as it is instead of retrying.
type handlerError struct{ err error }

func (e handlerError) Error() string { return e.err.Error() }
func (e handlerError) Unwrap() error { return e.err }

// isGone reports a resourceVersion that is too old (410 Gone / Expired).
func isGone(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// isPermanent reports errors that no retry can fix. 401 and 404 are left to
// RetryPolicy, which retries them in some cases.
func isPermanent(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsInvalid(err) || apierrors.IsMethodNotSupported(err) ||
		apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err)
}

// isTimeout reports a request that timed out: the server's 504 Timeout, or
// Options.RequestTimeout passing (a LIST's context deadline, or timedOut).
func isTimeout(err error) bool {
	return apierrors.IsTimeout(err) || errors.Is(err, context.DeadlineExceeded)
}

// streamingListUnsupported reports a server that refuses sendInitialEvents:
// older servers reject resourceVersionMatch on a watch as invalid.
func streamingListUnsupported(err error) bool {
	return apierrors.IsBadRequest(err) || apierrors.IsInvalid(err) ||
		apierrors.IsNotAcceptable(err) || apierrors.IsMethodNotSupported(err)
}

// retryAfter is the delay the server asked for (429 with Retry-After), if any.
func retryAfter(err error) time.Duration {
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}
