package postgres

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Shared is a server started on first use and shared by the tests of a
// test binary; each test takes a database of its own (Database). Stop it
// from TestMain (Stop), before a goroutine leak check.
type Shared struct {
	mu  sync.Mutex
	srv *Server
	err error
	n   atomic.Int64 // databases made
}

// Get returns the server, starting it on the first call. Where
// PostgreSQL is not installed, t is skipped, but under CI (CI set), where
// `make test` has installed it, t fails.
func (s *Shared) Get(t testing.TB) *Server {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil && s.err == nil {
		s.srv, s.err = Start(context.Background())
	}
	if errors.Is(s.err, ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Skip(s.err)
	}
	if s.err != nil {
		t.Fatalf("starting PostgreSQL: %v", s.err)
	}
	return s.srv
}

// Database returns the URL of a new, empty database for t (see Get).
func (s *Shared) Database(t testing.TB) string {
	t.Helper()
	srv := s.Get(t)
	url, err := srv.CreateDatabase(t.Context(), fmt.Sprintf("t%d_%s", s.n.Add(1), dbName(t.Name())))
	if err != nil {
		t.Fatal(err)
	}
	return url
}

var notName = regexp.MustCompile(`[^a-z0-9_]+`)

// dbName is a test's name as a database's (at most 63 bytes in all).
func dbName(test string) string {
	n := notName.ReplaceAllString(strings.ToLower(test), "_")
	return n[:min(len(n), 40)]
}

// Stop stops the server, if one was started.
func (s *Shared) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return nil
	}
	err := s.srv.Stop()
	s.srv = nil
	return err
}
