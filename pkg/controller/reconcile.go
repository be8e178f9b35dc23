package controller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/go-logr/logr"
)

// work reconciles what the scheduler hands out until it shuts down.
func (c *Controller) work(ctx context.Context) {
	for {
		req, t, ok := c.sched.next()
		if !ok {
			return
		}
		res, err := c.reconcile(ctx, req, t)
		c.sched.done(req, res, err)
	}
}

// reconcile runs one reconcile of req with its logger, trigger, metrics
// and record.
func (c *Controller) reconcile(ctx context.Context, req Request, t Trigger) (Result, error) {
	id := newReconcileID()
	log := c.opts.Logger.WithValues("controller", c.name, "namespace", req.Namespace, "name", req.Name, "reconcileID", id)
	ctx, span := c.startSpan(logr.NewContext(WithTrigger(ctx, t), log), req, t, id)

	done := c.opts.Metrics.reconcileStarted(c.name)
	start := time.Now()
	res, err, panicked := c.call(ctx, req)
	d := time.Since(start)
	done(d, res, err, panicked)
	endSpan(span, res, err)

	switch {
	case err != nil:
		log.Error(err, "Reconciler error", "trigger", t.Kind.String())
	default:
		log.V(4).Info("Reconciled", "trigger", t.Kind.String(), "requeueAfter", res.RequeueAfter, "duration", d)
	}
	if c.opts.OnReconcile != nil {
		c.opts.OnReconcile(ReconcileRecord{
			Controller: c.name, Request: req, Trigger: t, ReconcileID: id,
			Result: res, Err: err, Duration: d,
		})
	}
	return res, err
}

// call calls the reconciler, recovering a panic as an error.
func (c *Controller) call(ctx context.Context, req Request) (res Result, err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			logr.FromContextOrDiscard(ctx).Error(nil, "Observed a panic", "panic", v, "stacktrace", string(debug.Stack()))
			res, err, panicked = Result{}, fmt.Errorf("panic: %v [recovered]", v), true
		}
	}()
	res, err = c.r.Reconcile(ctx, req)
	return res, err, false
}

// newReconcileID is a short random ID that tells one reconcile's log lines
// from another's.
func newReconcileID() string {
	return strconv.FormatUint(rand.Uint64()>>16, 36)
}
