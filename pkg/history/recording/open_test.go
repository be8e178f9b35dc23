package recording

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// TestDefaultPath: one file per identity under $XDG_STATE_HOME.
func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	got, err := DefaultPath("abc")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/state", "kubectl-reflect", "history", "abc.db"); got != want {
		t.Errorf("DefaultPath = %q, want %q", got, want)
	}
}

// TestOpenRecord: a path named is opened as it is; with none, the one
// Locate finds, and its failure is OpenRecord's.
func TestOpenRecord(t *testing.T) {
	dir := t.TempDir()
	named, located := filepath.Join(dir, "named.db"), filepath.Join(dir, "located.db")
	for _, p := range []string{named, located} {
		s, err := history.Open(context.Background(), p, history.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	failed := errors.New("no directory")
	for _, tc := range []struct {
		name, path string
		locate     Locate
		want       string
		err        error
	}{
		{name: "named", path: named, locate: func(*rest.Config) (string, error) { return "", failed }, want: named},
		{name: "located", locate: func(*rest.Config) (string, error) { return located, nil }, want: located},
		{name: "not located", locate: func(*rest.Config) (string, error) { return "", failed }, err: failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := OpenRecord(context.Background(), &rest.Config{}, tc.path, tc.locate)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Location() != tc.want {
				t.Errorf("opened %q, want %q", s.Location(), tc.want)
			}
		})
	}
}
