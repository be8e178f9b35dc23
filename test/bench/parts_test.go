//go:build linux

package main

import (
	"maps"
	"slices"
	"testing"
)

func TestParseParts(t *testing.T) {
	tests := []struct {
		in      string
		want    []part
		wantErr bool
	}{
		{"", allParts(), false},
		{"get", []part{partGet}, false},
		{" memory , watch,get", []part{partGet, partMemory, partWatch}, false},
		{"relist,relist", []part{partRelist}, false},
		{"get,live", nil, true},
	}
	for _, tt := range tests {
		got, err := parseParts(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseParts(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		keys := slices.Sorted(maps.Keys(got))
		if want := slices.Sorted(slices.Values(tt.want)); !slices.Equal(keys, want) {
			t.Errorf("parseParts(%q) = %v, want %v", tt.in, keys, want)
		}
	}
}

func TestRowTarget(t *testing.T) {
	tests := []struct {
		r    row
		want string
	}{
		{row{ours: 1, baseline: 4, format: "%.2f", target: 0.25}, "≤ 0.25 (met)"},
		{row{ours: 1.1, baseline: 4, format: "%.2f", target: 0.25}, "≤ 0.25 (missed)"},
		{row{ours: 3, baseline: 2, format: "%.2f", target: 1.5}, "≤ 1.50 (met)"},
		{row{ours: 1, format: "%.2f", target: 0.5}, "≤ 0.50"},
		{row{ours: 1, baseline: 2, format: "%.2f"}, "-"},
	}
	for _, tt := range tests {
		if got := tt.r.cells()[4]; got != tt.want {
			t.Errorf("%+v: target cell %q, want %q", tt.r, got, tt.want)
		}
	}
}

// TestParseFlagsProfiles: each profile flag needs the part it profiles.
func TestParseFlagsProfiles(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr bool
	}{
		{[]string{"-controllerprofile", "c.pprof"}, false}, // every part runs
		{[]string{"-only", "controller", "-controllerprofile", "c.pprof"}, false},
		{[]string{"-only", "get", "-controllerprofile", "c.pprof"}, true},
		{[]string{"-only", "controller", "-cpuprofile", "m.pprof"}, true},
		{[]string{"-only", "watch", "-memprofile", "m.pprof"}, true},
	}
	for _, tt := range tests {
		_, err := parseFlags(tt.args)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseFlags(%q) error = %v, want error %v", tt.args, err, tt.wantErr)
		}
	}
}
