package output

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestKubectlError: a server's error reads "Error from server (Reason)",
// another "error: ..." alone and bare among others, as kubectl prints them.
func TestKubectlError(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "nope")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no"))
	tests := []struct {
		err   error
		alone bool
		want  string
	}{
		{notFound, true, `Error from server (NotFound): configmaps "nope" not found`},
		{notFound, false, `Error from server (NotFound): configmaps "nope" not found`},
		{errors.New("resource name may not be empty"), true, "error: resource name may not be empty"},
		{errors.New("resource name may not be empty"), false, "resource name may not be empty"},
		{errors.New("x"), false, "x"},
		// The server's error within ours, as a failed list returns it.
		{fmt.Errorf("listing configmaps: %w", forbidden), true, `Error from server (Forbidden): ` + forbidden.Error()},
		{fmt.Errorf("listing configmaps: %w", unauthorized), false, "error: You must be logged in to the server (Unauthorized)"},
		{fmt.Errorf("listing configmaps: %w", refused), true, "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"},
	}
	for _, tt := range tests {
		if got := KubectlError(tt.err, tt.alone); got != tt.want {
			t.Errorf("KubectlError(%v, %v) = %q, want %q", tt.err, tt.alone, got, tt.want)
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
			if got := FileErrorLines(tt.misplaced, tt.listed, tt.table); !slices.Equal(got, tt.want) {
				t.Errorf("FileErrorLines = %q, want %q", got, tt.want)
			}
		})
	}
}
