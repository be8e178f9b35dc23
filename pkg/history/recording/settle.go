package recording

import (
	"context"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// settle waits for the kinds started to settle and, those that synced,
// for their first state to be in the history (the daemon that says it
// serves records each change at once: not behind a burst of first states,
// one per kind), settleWait at most. Then it says which the API server
// refused (one line), which failed otherwise (a line each) and, after
// start-up, which are recorded now; those still listing are said when
// they settle.
func (a *All) settle(ctx context.Context, started []*recordedKind) {
	timer := time.NewTimer(settleWait)
	defer timer.Stop()
wait:
	for _, k := range started {
		select {
		case <-k.settled:
		case <-timer.C:
			break wait
		case <-ctx.Done():
			return
		}
		if k.err != nil { // settled: read after its close
			continue
		}
		select {
		case <-k.written:
		case <-k.handle.Done():
		case <-timer.C:
			break wait
		case <-ctx.Done():
			return
		}
	}
	var (
		names, added []string
		errs         []error
	)
	a.mu.Lock()
	for _, k := range started {
		select {
		case <-k.settled:
		default:
			k.late = true
			continue
		}
		gr := k.res.GVR.GroupResource()
		switch {
		case k.err == nil:
			if a.began {
				added = append(added, k.res.String())
			}
		case apierrors.IsForbidden(k.err) && a.said[gr]:
		default:
			a.said[gr] = a.said[gr] || apierrors.IsForbidden(k.err)
			names, errs = append(names, k.res.String()), append(errs, k.err)
		}
	}
	a.began = true
	a.mu.Unlock()
	a.sayRefused(names, errs)
	if len(added) > 0 {
		a.rec.say("Recording %s too\n", strings.Join(added, ", "))
	}
	a.publish() // the refusals said
}

// sayRefused says that the kinds names are not recorded: those the API
// server refused (403) in one line, the others each with its error.
func (a *All) sayRefused(names []string, errs []error) {
	var forbidden []string
	for i, name := range names {
		if apierrors.IsForbidden(errs[i]) {
			forbidden = append(forbidden, name)
			continue
		}
		a.rec.say("warning: not recording %s: %v\n", name, errs[i])
	}
	if len(forbidden) > 0 {
		a.rec.say("warning: not recording what this user may not list and watch (403): %s\n", strings.Join(forbidden, ", "))
	}
}

// Serve waits for the kinds start-up started to settle (settle: what the
// API server refused is said before the daemon serves), and keeps those
// recorded served by h, and those that sync later.
func (a *All) Serve(ctx context.Context, h *serve.Handler) {
	if a == nil {
		return
	}
	a.settle(ctx, a.starting)
	a.starting = nil
	a.mu.Lock()
	a.handler = h
	var keep []metav1.APIResource
	for _, k := range a.kinds {
		if k.recording {
			keep = append(keep, k.ar)
		}
	}
	a.mu.Unlock()
	for _, ar := range keep {
		h.Keep(ar)
	}
}
