package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// Errors are answered as the API server answers them: a Status object
// whose code is the HTTP status, whose reason and message kubectl prints as
// "Error from server (REASON): MESSAGE".

// writeStatus writes err's Status.
func writeStatus(w http.ResponseWriter, _ *http.Request, err *apierrors.StatusError) {
	st := statusOf(err)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}

// WriteStatus writes err's Status as the API server writes an error, for
// handlers beside this package's (pkg/merge).
func WriteStatus(w http.ResponseWriter, err *apierrors.StatusError) { writeStatus(w, nil, err) }

// statusOf is err's Status with its type set, as it goes on the wire.
func statusOf(err *apierrors.StatusError) metav1.Status {
	st := err.ErrStatus
	st.Kind, st.APIVersion = "Status", "v1"
	st.Status = metav1.StatusFailure
	return st
}

// readOnly is what every refused write says.
const readOnly = "this endpoint is a read-only cache (kubectl reflect serve): send writes to the API server"

// methodNotAllowed refuses a write.
func methodNotAllowed(r *http.Request) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed,
		Message: fmt.Sprintf("%s %s is not allowed: %s", r.Method, r.URL.Path, readOnly),
	}}
}

// notFoundPath is the API server's answer to a path it does not serve.
func notFoundPath() *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource",
		Details: &metav1.StatusDetails{},
	}}
}

// notCached answers a resource (or subresource) the handler does not
// cache.
func notCached(what string) *apierrors.StatusError {
	err := notFoundPath()
	err.ErrStatus.Message = fmt.Sprintf("the server could not find the requested resource: %s is not cached by this read-only cache (kubectl reflect serve)", what)
	return err
}

func badRequest(format string, args ...any) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf(format, args...))
}

// tooOld is the API server's 410 for a resourceVersion rv that its
// history no longer reaches, err the store's: the number in parentheses
// is, as the API server's, the oldest resourceVersion a watch may resume
// from (store.TooOldError.Oldest).
func tooOld(rv string, err error) *apierrors.StatusError {
	oldest := "0"
	var old *store.TooOldError
	if errors.As(err, &old) && old.Oldest != "" {
		oldest = old.Oldest
	}
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %s (%s)", rv, oldest))
}

// backfill asks c's source to reach back to resourceVersion rv, which its
// window does not (see Source.Backfill), before the request asks it
// again. A failure (the API server no longer holds the changes after rv
// either: its 410) leaves the store's answer, 410 naming the oldest
// resourceVersion the daemon holds.
func backfill(ctx context.Context, c *cached, rv string) {
	_ = c.Source.Backfill(ctx, rv)
}

// tooLarge is the API server's answer to a resourceVersion it has not
// reached within its wait: 504 with the cause ResourceVersionTooLarge, which
// client-go recognises (apierrors.IsTooLargeResourceVersionError).
func tooLarge(rv, current string) *apierrors.StatusError {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %s, current: %s", rv, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version",
	}}
	return err
}

// invalidSelector is the API server's 400 for a selector it refuses (kubectl
// adds "Unable to find ... that match ..." before it).
func invalidSelector(err error) *apierrors.StatusError {
	return badRequest("%v", err)
}
