//go:build linux

package main

import (
	"net/http"
	"testing"
)

// TestListRequests: the requests a typed informer sends are told apart
// (a LIST, a streaming list, a plain WATCH), and check accepts only the
// path its row names.
func TestListRequests(t *testing.T) {
	const base = "https://127.0.0.1/api/v1/namespaces/bench/configmaps"
	list := base + "?limit=500&resourceVersion=0"
	stream := base + "?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"
	watch := base + "?allowWatchBookmarks=true&resourceVersion=1234&watch=true"
	tests := []struct {
		name      string
		urls      []string
		streaming bool
		ok        bool
	}{
		{"streaming list", []string{stream}, true, true},
		{"LIST then WATCH", []string{list, watch}, false, true},
		{"LIST when a streaming list is wanted", []string{list, watch}, true, false},
		{"fallback to a LIST after a streaming list", []string{stream, list, watch}, true, false},
		{"streaming list when a LIST is wanted", []string{stream}, false, false},
		{"nothing sent", nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent listRequests
			rt := sent.wrap(roundTripFunc(func(*http.Request) (*http.Response, error) { return &http.Response{StatusCode: http.StatusOK}, nil }))
			for _, u := range tt.urls {
				req, err := http.NewRequest(http.MethodGet, u, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := rt.RoundTrip(req); err != nil {
					t.Fatal(err)
				}
			}
			if err := sent.check(tt.streaming); (err == nil) != tt.ok {
				t.Errorf("check(streaming=%v) = %v, want ok %v", tt.streaming, err, tt.ok)
			}
		})
	}
}
