package failover

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/reflector"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// Gone is shared by the Clients of one command: once one of them
// has found the daemon gone, all of them go to the API server.
type Gone struct{ gone atomic.Bool }

// Client is a reflector.Client of one resource that lists and watches
// through a daemon until the daemon fails to answer, then through the API
// server, for good. The daemon's resourceVersions are the API server's, so
// a watch resumes at the API server from the last one the daemon sent.
//
// A daemon that refuses the resource (403 Forbidden: the user may not read
// it in the namespaces asked; the daemon asks the API server as the user)
// is passed by for this resource alone: its requests go to the server, whose
// answer, the objects or its own refusal, is the one the user would have
// had without a daemon.
type Client struct {
	daemon, server reflector.Client
	gone           *Gone
	refused        atomic.Bool // the daemon answered 403 to this resource
}

var _ reflector.Client = (*Client)(nil)

// New returns a Client that asks daemon first and server once
// gone says the daemon is gone.
func New(daemon, server reflector.Client, gone *Gone) *Client {
	return &Client{daemon: daemon, server: server, gone: gone}
}

// Resource is the resource both clients read.
func (f *Client) Resource() kube.Resource { return f.current().Resource() }

// Reuse hands known to both clients.
func (f *Client) Reuse(known object.Known) {
	f.daemon.Reuse(known)
	f.server.Reuse(known)
}

// Columns are those of the client in use; the daemon's are the server's.
func (f *Client) Columns() []object.Column {
	if cols := f.current().Columns(); cols != nil {
		return cols
	}
	return f.daemon.Columns()
}

func (f *Client) current() reflector.Client {
	if f.atServer() {
		return f.server
	}
	return f.daemon
}

// atServer says whether requests go to the server: the daemon is gone, or
// it refused this resource.
func (f *Client) atServer() bool { return f.gone.gone.Load() || f.refused.Load() }

// refuses says whether err, from the daemon, refuses the resource (see
// Client), and marks it refused if so.
func (f *Client) refuses(err error) bool {
	if !apierrors.IsForbidden(err) {
		return false
	}
	f.refused.Store(true)
	return true
}

// failed says whether err, from the daemon, means that it is gone: it did
// not answer, or its answer broke off (an API status is an answer). It
// marks it gone if so.
func (f *Client) failed(ctx context.Context, err error) bool {
	var status apierrors.APIStatus
	if err == nil || ctx.Err() != nil || errors.Is(err, io.EOF) || errors.As(err, &status) {
		return false
	}
	f.gone.gone.Store(true)
	return true
}

// List lists through the daemon, or the server when the daemon is gone.
// A page after the first cannot move: the daemon's continue token means
// nothing to the server, so its failure is returned and the watcher lists
// again, from the server.
func (f *Client) List(ctx context.Context, req watch.ListRequest) (watch.Page[*object.Object], error) {
	if f.atServer() {
		return f.server.List(ctx, req)
	}
	page, err := f.daemon.List(ctx, req)
	if (f.refuses(err) || f.failed(ctx, err)) && req.Continue == "" {
		return f.server.List(ctx, req)
	}
	return page, err
}

// Watch watches through the daemon, or the server when the daemon is gone.
func (f *Client) Watch(ctx context.Context, req watch.WatchRequest) (watch.Stream[*object.Object], error) {
	if f.atServer() {
		return f.server.Watch(ctx, req)
	}
	s, err := f.daemon.Watch(ctx, req)
	if f.refuses(err) || f.failed(ctx, err) {
		return f.server.Watch(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	return &failoverStream{f: f, ctx: ctx, req: req, cur: s, rv: req.ResourceVersion}, nil
}

// failoverStream is a daemon's watch that goes on at the server, from the
// last resourceVersion it delivered, when the daemon's stream breaks off.
type failoverStream struct {
	f       *Client
	ctx     context.Context
	req     watch.WatchRequest
	cur     watch.Stream[*object.Object]
	rv      string // of the last event delivered
	initEnd bool   // the initial events of a streaming list have ended
	moved   bool   // cur is the server's
}

func (s *failoverStream) Next() (watch.WatchEvent[*object.Object], error) {
	ev, err := s.cur.Next()
	if err == nil {
		if ev.Type != watch.WatchError {
			s.rv = ev.ResourceVersion
		}
		s.initEnd = s.initEnd || ev.InitialEventsEnd
		return ev, nil
	}
	if s.moved || !s.f.failed(s.ctx, err) || s.rv == "" || s.rv == "0" || (s.req.SendInitialEvents && !s.initEnd) {
		return ev, err // the watcher starts again (from the server if the daemon is gone)
	}
	s.cur.Close()
	req := s.req
	req.ResourceVersion, req.SendInitialEvents = s.rv, false
	next, werr := s.f.server.Watch(s.ctx, req)
	if werr != nil {
		var status apierrors.APIStatus
		if errors.As(werr, &status) {
			return watch.WatchEvent[*object.Object]{Type: watch.WatchError, Err: werr}, nil
		}
		s.cur = closedStream{err: werr}
		return ev, werr
	}
	s.cur, s.moved = next, true
	return s.cur.Next()
}

func (s *failoverStream) Close() { s.cur.Close() }

// closedStream is a stream that could not be opened.
type closedStream struct{ err error }

func (c closedStream) Next() (watch.WatchEvent[*object.Object], error) {
	return watch.WatchEvent[*object.Object]{}, c.err
}
func (closedStream) Close() {}

// Restore decodes a recorded object as the client in use does
// (reflector.Restorer): a watch --since starts from the history through a
// daemon as without one.
func (f *Client) Restore(raw, cells []byte) (*object.Object, error) {
	r, ok := f.current().(reflector.Restorer)
	if !ok {
		return nil, errors.New("this client cannot restore recorded objects")
	}
	return r.Restore(raw, cells)
}

// RestoreColumns gives both clients the recorded columns.
func (f *Client) RestoreColumns(defs []byte) error {
	for _, c := range []reflector.Client{f.daemon, f.server} {
		if r, ok := c.(reflector.Restorer); ok {
			if err := r.RestoreColumns(defs); err != nil {
				return err
			}
		}
	}
	return nil
}
