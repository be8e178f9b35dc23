package failover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// scripted is a client whose watches send events of the given
// resourceVersions, then end with err; it records what it was asked.
type scripted struct {
	listErr  error
	watchErr error
	rvs      []string
	end      error
	asked    []string // "list" or "watch <rv>"
}

func (s *scripted) Resource() kube.Resource {
	return kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}}
}
func (s *scripted) Reuse(object.Known)       {}
func (s *scripted) Columns() []object.Column { return nil }

func (s *scripted) List(context.Context, watch.ListRequest) (watch.Page[*object.Object], error) {
	s.asked = append(s.asked, "list")
	return watch.Page[*object.Object]{ResourceVersion: "1"}, s.listErr
}

func (s *scripted) Watch(_ context.Context, req watch.WatchRequest) (watch.Stream[*object.Object], error) {
	s.asked = append(s.asked, "watch "+req.ResourceVersion)
	if s.watchErr != nil {
		return nil, s.watchErr
	}
	return &stream{rvs: s.rvs, end: s.end}, nil
}

type stream struct {
	rvs []string
	end error
}

func (s *stream) Next() (watch.WatchEvent[*object.Object], error) {
	if len(s.rvs) == 0 {
		return watch.WatchEvent[*object.Object]{}, s.end
	}
	rv := s.rvs[0]
	s.rvs = s.rvs[1:]
	return watch.WatchEvent[*object.Object]{Type: watch.WatchModified, ResourceVersion: rv}, nil
}
func (s *stream) Close() {}

// errReset is how a killed daemon's connection fails.
var errReset = fmt.Errorf("read tcp: %w", syscall.ECONNRESET)

// TestFailoverWatch: a daemon's stream that breaks off goes on at the
// server from the last resourceVersion delivered; one that ends cleanly, or
// with an API status, does not move.
func TestFailoverWatch(t *testing.T) {
	gone410 := apierrors.NewResourceExpired("too old")
	for _, tt := range []struct {
		name       string
		daemon     *scripted
		want       []string // resourceVersions read, then the error
		wantServer []string
		wantGone   bool
	}{
		{
			name:   "broken off: resumed at the server",
			daemon: &scripted{rvs: []string{"11", "12"}, end: errReset},
			want:   []string{"11", "12", "13", "14", "EOF"}, wantServer: []string{"watch 12"}, wantGone: true,
		},
		{
			name:   "ended cleanly: the watcher's to resume",
			daemon: &scripted{rvs: []string{"11"}, end: io.EOF},
			want:   []string{"11", "EOF"},
		},
		{
			name:   "an API status: an answer, not a failure",
			daemon: &scripted{end: gone410},
			want:   []string{"too old"},
		},
		{
			name:   "no connection: at the server at once",
			daemon: &scripted{watchErr: errReset},
			want:   []string{"13", "14", "EOF"}, wantServer: []string{"watch 10"}, wantGone: true,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := &scripted{rvs: []string{"13", "14"}, end: io.EOF}
			gone := &Gone{}
			f := New(tt.daemon, server, gone)
			s, err := f.Watch(t.Context(), watch.WatchRequest{ResourceVersion: "10"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				ev, err := s.Next()
				if err != nil {
					got = append(got, errText(err))
					break
				}
				got = append(got, ev.ResourceVersion)
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(server.asked, tt.wantServer) || gone.gone.Load() != tt.wantGone {
				t.Errorf("read %v, server asked %v, gone %v; want %v, %v, %v", got, server.asked, gone.gone.Load(), tt.want, tt.wantServer, tt.wantGone)
			}
		})
	}
}

// TestFailoverList: a first page the daemon cannot answer is asked of the
// server, and every request after it; a later page is not.
func TestFailoverList(t *testing.T) {
	daemon, server, gone := &scripted{listErr: errReset}, &scripted{}, &Gone{}
	f := New(daemon, server, gone)
	if _, err := f.List(t.Context(), watch.ListRequest{Continue: "c"}); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("a later page: %v, want the daemon's error", err)
	}
	daemon.asked, server.asked = nil, nil
	gone.gone.Store(false)
	if _, err := f.List(t.Context(), watch.ListRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.List(t.Context(), watch.ListRequest{}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(daemon.asked, []string{"list"}) || !slices.Equal(server.asked, []string{"list", "list"}) {
		t.Errorf("daemon asked %v, server %v; want the daemon once, then the server", daemon.asked, server.asked)
	}
}

// TestFailoverRefused: a resource the daemon refuses (403) is read from
// the server from then on, a list or a watch alike, whatever the server
// answers; the command's other resources stay at the daemon.
func TestFailoverRefused(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("cluster scope"))
	serverForbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("namespace"))
	tests := []struct {
		name        string
		call        func(*Client) error
		server      *scripted
		wantErr     error
		daemonAsked []string
		serverAsked []string
	}{
		{"list", func(f *Client) error { _, err := f.List(t.Context(), watch.ListRequest{}); return err },
			&scripted{}, nil, []string{"list"}, []string{"list"}},
		{"list refused by the server too", func(f *Client) error { _, err := f.List(t.Context(), watch.ListRequest{}); return err },
			&scripted{listErr: serverForbidden}, serverForbidden, []string{"list"}, []string{"list"}},
		{"a later page", func(f *Client) error {
			_, err := f.List(t.Context(), watch.ListRequest{Continue: "c"})
			return err
		},
			&scripted{}, forbidden, []string{"list"}, nil},
		{"watch (a streaming list)", func(f *Client) error {
			s, err := f.Watch(t.Context(), watch.WatchRequest{SendInitialEvents: true})
			if err == nil {
				s.Close()
			}
			return err
		}, &scripted{}, nil, []string{"watch "}, []string{"watch "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			daemon, gone := &scripted{listErr: forbidden, watchErr: forbidden}, &Gone{}
			f, other := New(daemon, tt.server, gone), New(&scripted{}, &scripted{}, gone)
			if err := tt.call(f); !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(daemon.asked, tt.daemonAsked) || !slices.Equal(tt.server.asked, tt.serverAsked) {
				t.Errorf("daemon asked %v, server %v; want %v, %v", daemon.asked, tt.server.asked, tt.daemonAsked, tt.serverAsked)
			}
			if f.current() != tt.server || other.current() != other.daemon {
				t.Errorf("later requests at the server: %v; the other resource's at the daemon: %v", f.current() == tt.server, other.current() == other.daemon)
			}
		})
	}
}

func errText(err error) string {
	if errors.Is(err, io.EOF) {
		return "EOF"
	}
	return err.Error()
}
