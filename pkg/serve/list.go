package serve

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// get answers a GET of one object.
func (h *Handler) get(w http.ResponseWriter, r *http.Request, c *cached, req request) {
	include, ok := includeObject(w, r)
	if !ok {
		return
	}
	o, ok := c.Source.Get(store.Key{Namespace: req.namespace, Name: req.name})
	if !ok {
		writeStatus(w, r, apierrors.NewNotFound(c.res.GVR.GroupResource(), req.name))
		return
	}
	e := newEncoder(c, formOf(r), include, h.opts.Now())
	var body []byte
	if e.form == formTable {
		body = e.appendTable(nil, o.ResourceVersion, true, o)
	} else {
		body = e.appendObject(nil, o)
	}
	writeRaw(w, "application/json", append(body, '\n')) // as the API server ends a JSON answer
}

// listOptions are a LIST's parameters.
type listOptions struct {
	rv, match, cont string
	limit           int
}

func parseListOptions(r *http.Request) (listOptions, *apierrors.StatusError) {
	q := r.URL.Query()
	o := listOptions{rv: q.Get("resourceVersion"), match: q.Get("resourceVersionMatch"), cont: q.Get("continue")}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return o, badRequest("invalid limit %q: %v", s, err)
		}
		o.limit = max(n, 0)
	}
	var errs field.ErrorList
	switch {
	case o.match != "" && o.match != string(metav1.ResourceVersionMatchNotOlderThan) && o.match != string(metav1.ResourceVersionMatchExact):
		errs = append(errs, field.NotSupported(field.NewPath("resourceVersionMatch"), o.match, []string{"Exact", "NotOlderThan", ""}))
	case o.match != "" && o.rv == "":
		errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden unless resourceVersion is provided"))
	case o.match != "" && o.cont != "":
		errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
	case o.match == string(metav1.ResourceVersionMatchExact) && o.rv == "0":
		errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
	case o.cont != "" && o.rv != "" && o.rv != "0":
		errs = append(errs, field.Forbidden(field.NewPath("resourceVersion"), "specifying resource version is not allowed when using continue"))
	}
	if len(errs) > 0 {
		return o, apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", errs)
	}
	return o, nil
}

// readSelection is what a LIST and a WATCH read alike beside their options:
// how to write each object (includeObject) and which to keep (a filter of
// the namespace, the label selector and fieldSel). When ok is false, it
// has answered the request with the error.
func readSelection(w http.ResponseWriter, r *http.Request, c *cached, namespace, fieldSel string) (include string, f *filter, ok bool) {
	if include, ok = includeObject(w, r); !ok {
		return "", nil, false
	}
	f, err := newFilter(c, namespace, r.URL.Query().Get("labelSelector"), fieldSel)
	if err != nil {
		writeStatus(w, r, asStatus(err))
		return "", nil, false
	}
	return include, f, true
}

// list answers a LIST.
func (h *Handler) list(w http.ResponseWriter, r *http.Request, c *cached, req request) {
	q := r.URL.Query()
	opts, serr := parseListOptions(r)
	if serr != nil {
		writeStatus(w, r, serr)
		return
	}
	include, f, ok := readSelection(w, r, c, req.namespace, q.Get("fieldSelector"))
	if !ok {
		return
	}
	sn, start, serr := h.listSnapshot(r.Context(), c, opts)
	if serr != nil {
		writeStatus(w, r, serr)
		return
	}
	page, meta := paginate(sn, f, start, opts.limit)
	if meta.Continue != "" {
		c.snapshots.keep(sn)
	}
	h.writeList(w, newEncoder(c, formOf(r), include, h.opts.Now()), meta, page)
}

// listSnapshot chooses the snapshot a LIST shows (see the package's doc)
// and where in it the page starts.
func (h *Handler) listSnapshot(ctx context.Context, c *cached, opts listOptions) (*snapshot, int, *apierrors.StatusError) {
	switch {
	case opts.cont != "":
		tok, err := decodeContinue(opts.cont)
		if err != nil {
			return nil, 0, badRequest("%v", err)
		}
		sn, ok := c.snapshots.get(tok.RV)
		if !ok {
			return nil, 0, h.expiredContinue(c, tok)
		}
		return sn, after(sn.items, tok.Start), nil
	case opts.rv == "" || opts.rv == "0":
		return c.snapshots.current(c.Source), 0, nil
	}
	want, ok := store.ParseRV(opts.rv)
	if !ok {
		return nil, 0, badRequest("invalid resource version %q", opts.rv)
	}
	if opts.match == string(metav1.ResourceVersionMatchExact) {
		if sn, ok := c.snapshots.get(opts.rv); ok {
			return sn, 0, nil
		}
		sn := c.snapshots.current(c.Source)
		if sn.rv == opts.rv {
			return sn, 0, nil
		}
		if cur, _ := store.ParseRV(sn.rv); want > cur {
			return nil, 0, tooLarge(opts.rv, sn.rv)
		}
		return h.stateAt(ctx, c, opts.rv)
	}
	if err := waitFor(ctx, c.Source, want, h.opts.FreshWait); err != nil {
		return nil, 0, err
	}
	return c.snapshots.current(c.Source), 0, nil
}

// stateAt is the snapshot of an exact LIST at an earlier resourceVersion
// rv, from the store's window, reaching back before the store's first
// list when the API server still holds the changes since rv (see
// Source.Backfill); else the API server's 410 for an exact list.
func (h *Handler) stateAt(ctx context.Context, c *cached, rv string) (*snapshot, int, *apierrors.StatusError) {
	items, err := c.Source.StateAt(rv)
	if errors.Is(err, store.ErrTooOld) {
		backfill(ctx, c, rv)
		items, err = c.Source.StateAt(rv)
	}
	if errors.Is(err, store.ErrTooOld) && h.opts.History != nil {
		items, err = h.opts.History.StateAt(ctx, c.res, c.Namespace, rv)
	}
	switch {
	case err == nil:
		return &snapshot{rv: rv, items: items}, 0, nil
	case errors.Is(err, store.ErrTooOld):
		return nil, 0, apierrors.NewResourceExpired(tooOldList)
	}
	return nil, 0, apierrors.NewInternalError(err)
}

// tooOldList is the API server's message for an exact list at a
// resourceVersion it no longer holds.
const tooOldList = "The resourceVersion for the provided list is too old."

// expiredContinue is the API server's 410 for a continue token whose
// snapshot is gone, with a token that continues after the same key in the
// current state (an inconsistent list, as the message says).
func (h *Handler) expiredContinue(c *cached, tok continueToken) *apierrors.StatusError {
	cur := c.snapshots.current(c.Source)
	c.snapshots.keep(cur)
	err := apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. " +
		"Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
	err.ErrStatus.ListMeta.Continue = encodeContinue(cur.rv, tok.Start)
	return err
}

// waitFor waits until src has reached resourceVersion want, at most
// freshWait, else answers tooLarge.
func waitFor(ctx context.Context, src Source, want uint64, freshWait time.Duration) *apierrors.StatusError {
	reached := func() bool {
		cur, ok := store.ParseRV(src.ResourceVersion())
		return ok && cur >= want
	}
	if reached() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, freshWait)
	defer cancel()
	sub, err := src.SubscribeFrom(ctx, src.ResourceVersion(), store.SubscribeOptions{})
	if err == nil {
		defer sub.Close()
		for !reached() {
			if _, err := sub.Next(ctx); err != nil {
				break
			}
		}
	}
	if reached() {
		return nil
	}
	return tooLarge(strconv.FormatUint(want, 10), src.ResourceVersion())
}

// paginate is the page of sn that f keeps from index start on, at most
// limit objects (all when limit is 0), and its list metadata: the
// snapshot's resourceVersion, a continue token when more objects match,
// and how many objects remain when no selector makes that costly to count.
func paginate(sn *snapshot, f *filter, start, limit int) ([]*object.Object, metav1.ListMeta) {
	meta := metav1.ListMeta{ResourceVersion: sn.rv}
	lo, hi := namespaceRange(sn.items, f.namespace)
	var page []*object.Object
	for i := max(start, lo); i < hi; i++ {
		o := sn.items[i]
		if !f.matches(o) {
			continue
		}
		if limit > 0 && len(page) == limit {
			meta.Continue = encodeContinue(sn.rv, keyString(page[len(page)-1]))
			if f.empty {
				remaining := int64(hi - i)
				meta.RemainingItemCount = &remaining
			}
			break
		}
		page = append(page, o)
	}
	return page, meta
}

// writeList writes a list of page in e's form, streaming it.
func (h *Handler) writeList(w http.ResponseWriter, e *encoder, meta metav1.ListMeta, page []*object.Object) {
	if e.form == formTable {
		sortRows(e.res.GVR.GroupResource(), page)
	}
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.Write(e.listHead(meta))
	var buf []byte
	for i, o := range page {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = e.appendObject(buf, o)
		if _, err := bw.Write(buf); err != nil {
			return // the client went away
		}
	}
	_, _ = bw.WriteString(listTail)
	_ = bw.Flush()
}

// asStatus is err as a Status error (an internal error if it is none).
func asStatus(err error) *apierrors.StatusError {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return se
	}
	return apierrors.NewInternalError(err)
}
