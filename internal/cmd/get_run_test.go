package cmd

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// TestWithKind: kubectl names the kind in its tables when its answer holds
// several kinds: every kind listed counts, empty or not; of names, only the
// objects found.
func TestWithKind(t *testing.T) {
	cm, secret := snapshot{res: cmResource}, snapshot{res: secretResource}
	with := func(s snapshot, names []string, objs []*object.Object) snapshot {
		s.names, s.objs = names, objs
		return s
	}
	a := []*object.Object{{Name: "a"}}
	tests := []struct {
		name  string
		snaps []snapshot
		want  bool
	}{
		{"one kind", []snapshot{with(cm, nil, a)}, false},
		{"two kinds listed, one empty", []snapshot{with(cm, nil, a), secret}, true},
		{"two kinds named, one found", []snapshot{with(cm, []string{"a"}, a), with(secret, []string{"a"}, nil)}, false},
		{"two kinds named, both found", []snapshot{with(cm, []string{"a"}, a), with(secret, []string{"a"}, a)}, true},
		{"one kind named twice", []snapshot{with(cm, []string{"a"}, a), with(secret, []string{"b"}, nil), with(cm, []string{"a"}, a)}, false},
		{"one kind in two namespaces (a manifest)", []snapshot{with(cm, []string{"a"}, a), with(snapshot{res: cmResource}, []string{"b"}, a)}, false},
		{"nothing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withKind(tt.snaps); got != tt.want {
				t.Errorf("withKind = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestMissingMessage: a server's error reads "Error from server (Reason)",
// another "error: ..." alone and bare among others, as kubectl prints them.
func TestMissingMessage(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "nope")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no"))
	tests := []struct {
		err   error
		alone bool
		want  string
	}{
		{notFound, true, `Error from server (NotFound): configmaps "nope" not found`},
		{notFound, false, `Error from server (NotFound): configmaps "nope" not found`},
		{errEmptyName, true, "error: resource name may not be empty"},
		{errEmptyName, false, "resource name may not be empty"},
		{errors.New("x"), false, "x"},
		// The server's error within ours, as a failed list returns it.
		{fmt.Errorf("listing configmaps: %w", forbidden), true, `Error from server (Forbidden): ` + forbidden.Error()},
		{fmt.Errorf("listing configmaps: %w", unauthorized), false, "error: You must be logged in to the server (Unauthorized)"},
		{fmt.Errorf("listing configmaps: %w", refused), true, "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"},
	}
	for _, tt := range tests {
		if got := missingMessage(tt.err, tt.alone); got != tt.want {
			t.Errorf("missingMessage(%v, %v) = %q, want %q", tt.err, tt.alone, got, tt.want)
		}
	}
}

var (
	unauthorized = apierrors.NewUnauthorized("Unauthorized")
	refused      = &url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}
)

// TestFileErrorLines: get -f words its errors as kubectl's checkErr prints
// the tree its resource builder returns (misplaced objects, then the
// list's errors nested), a level deeper for a table.
func TestFileErrorLines(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "nope")
	notFound2 := apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, "gone")
	misplaced := errors.New("the namespace from the provided object \"a\" does not match")
	noNamespace := errors.New(`no namespace set on resource /v1, Resource=configmaps "x"`)
	tests := []struct {
		name              string
		misplaced, listed []error
		table             bool
		want              []string
	}{
		{"none", nil, nil, true, nil},
		{"NotFound in a table", nil, []error{notFound}, true, []string{`Error from server (NotFound): configmaps "nope" not found`}},
		{"NotFound alone", nil, []error{notFound}, false, []string{`Error from server (NotFound): configmaps "nope" not found`}},
		{"no namespace in a table", nil, []error{noNamespace}, true, []string{noNamespace.Error()}},
		{"no namespace alone", nil, []error{noNamespace}, false, []string{"error: " + noNamespace.Error()}},
		{"misplaced alone", []error{misplaced}, nil, true, []string{"error: " + misplaced.Error()}},
		{"misplaced and NotFound", []error{misplaced}, []error{notFound}, true, []string{misplaced.Error(), `configmaps "nope" not found`}},
		{"misplaced and two NotFound", []error{misplaced}, []error{notFound, notFound2}, false,
			[]string{misplaced.Error(), `[configmaps "nope" not found, secrets "gone" not found]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fileErrorLines(tt.misplaced, tt.listed, tt.table); !slices.Equal(got, tt.want) {
				t.Errorf("fileErrorLines = %q, want %q", got, tt.want)
			}
		})
	}
}
