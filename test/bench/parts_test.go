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
		{"", []part{partGet, partWatch, partController, partServe, partContexts, partHistory, partRealistic, partMemory, partRelist, partScale}, false},
		{"scale", []part{partScale}, false},
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

func TestRowStatus(t *testing.T) {
	tests := []struct {
		r                  row
		wantTarget, status string
	}{
		{row{ours: 1, baseline: 4, format: "%.2f", target: 0.25}, "≤ 0.25x", "met"},
		{row{ours: 1.1, baseline: 4, format: "%.2f", target: 0.25}, "≤ 0.25x", "missed"},
		{row{ours: 3, baseline: 2, format: "%.2f", target: 1.5}, "≤ 1.50x", "met"},
		{row{ours: 1, format: "%.2f", target: 0.5}, "≤ 0.50x", "n/a"},
		{row{ours: 1, baseline: 2, format: "%.2f"}, "reference", ""},
		{row{ours: 49, baseline: 80, format: "%.1f", unit: "ms", limit: 50}, "≤ 50.0 ms", "met"},
		{row{ours: 67, baseline: 60, format: "%.1f", unit: "ms", limit: 50}, "≤ 50.0 ms", "missed"},
	}
	for _, tt := range tests {
		if got := tt.r.targetText(); got != tt.wantTarget {
			t.Errorf("%+v: target %q, want %q", tt.r, got, tt.wantTarget)
		}
		if got := tt.r.status(); got != tt.status {
			t.Errorf("%+v: status %q, want %q", tt.r, got, tt.status)
		}
	}
	if got := (row{ours: 0.1055, baseline: 0.3, target: 0.35}).ratioText(); got != "0.352x" {
		t.Errorf("a ratio just above its target reads %q, want three decimals: 0.352x", got)
	}
	if got := (row{ours: 0.103, baseline: 0.3, target: 0.35}).ratioText(); got != "0.34x" {
		t.Errorf("ratioText = %q, want 0.34x", got)
	}
	missed := row{ours: 2, baselineName: "kubectl", baseline: 1, format: "%.1f", unit: "s", target: 0.5}.cells()
	if missed[6] != "**missed**" {
		t.Errorf("a missed target's cell is %q, want it said plainly in bold", missed[6])
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
