package store

import (
	"slices"
	"strings"
	"testing"
)

// TestCompareKeys pins the API server's order of keys: the strings
// NAMESPACE/NAME (or NAME) compared.
func TestCompareKeys(t *testing.T) {
	tests := []struct {
		a, b Key
		want int
	}{
		{Key{"a", "x"}, Key{"a", "x"}, 0},
		{Key{"a", "x"}, Key{"a", "y"}, -1},
		{Key{"a-b", "y"}, Key{"a", "x"}, -1}, // '-' < '/'
		{Key{"app-dev", "z"}, Key{"app", "a"}, -1},
		{Key{"a", "x"}, Key{"ab", "x"}, -1}, // '/' < 'b'
		{Key{"ab", "a"}, Key{"b", "a"}, -1},
		{Key{"b", "a"}, Key{"ab", "z"}, 1},
		{Key{"", "x"}, Key{"", "xy"}, -1},
		{Key{"", "b"}, Key{"", "a"}, 1},
		{Key{"a", "x"}, Key{"", "a/x"}, 0}, // a continue token's key
		{Key{"a", "x"}, Key{"", "a/"}, 1},
		{Key{"a", "x"}, Key{"", "a-"}, 1},
		{Key{"a", "x"}, Key{"", "a0"}, -1},
		{Key{"", "a"}, Key{"a", ""}, -1},
	}
	for _, tt := range tests {
		if got := CompareKeys(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareKeys(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := CompareKeys(tt.b, tt.a); got != -tt.want {
			t.Errorf("CompareKeys(%v, %v) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
		if got := strings.Compare(tt.a.String(), tt.b.String()); got != tt.want {
			t.Errorf("the keys as strings compare %d, want %d", got, tt.want)
		}
	}
}

// FuzzCompareKeys: CompareKeys is the comparison of the keys as strings.
func FuzzCompareKeys(f *testing.F) {
	f.Add("a-b", "y", "a", "x")
	f.Add("a", "x", "", "a/x")
	f.Fuzz(func(t *testing.T, ans, an, bns, bn string) {
		a, b := Key{ans, an}, Key{bns, bn}
		if got, want := CompareKeys(a, b), strings.Compare(a.String(), b.String()); got != want {
			t.Fatalf("CompareKeys(%q, %q) = %d, the strings compare %d", a, b, got, want)
		}
	})
}

// TestListOrder: with Options.ListOrder, List and Snapshot keep the latest
// list's order (the server's), objects added since after it in key order,
// and a relist's order replaces the first's; without, key order.
func TestListOrder(t *testing.T) {
	tests := []struct {
		name      string
		listOrder bool
		events    []ev
		want      []string
	}{{
		name:   "key order by default",
		events: relist("10", "ns/b@1", "app/x@2", "app-dev/x@3"),
		want:   []string{"app-dev/x@3", "app/x@2", "ns/b@1"},
	}, {
		name:      "the list's order",
		listOrder: true,
		events:    relist("10", "ns/b@1", "app/x@2", "app-dev/x@3"),
		want:      []string{"ns/b@1", "app/x@2", "app-dev/x@3"},
	}, {
		name:      "added since: after, in key order; deleted: gone",
		listOrder: true,
		events: script(relist("10", "ns/b@1", "app/x@2", "app-dev/x@3"),
			applyEv("z/z@11"), applyEv("a/a@12"), applyEv("app/x@13"), deleteEv("ns/b@14")),
		want: []string{"app/x@13", "app-dev/x@3", "a/a@12", "z/z@11"},
	}, {
		name:      "a relist's order",
		listOrder: true,
		events:    script(relist("10", "ns/b@1", "app/x@2"), relist("20", "app/x@2", "c/c@15", "ns/b@1")),
		want:      []string{"app/x@2", "c/c@15", "ns/b@1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New[*obj](Options[*obj]{ListOrder: tt.listOrder})
			mustApply(t, s, tt.events...)
			if got := state(s); !slices.Equal(got, tt.want) {
				t.Errorf("List = %q, want %q", got, tt.want)
			}
			items, _ := s.Snapshot(nil)
			if got := describeObjects(items); !slices.Equal(got, tt.want) {
				t.Errorf("Snapshot = %q, want %q", got, tt.want)
			}
		})
	}
}
