//go:build linux

package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      int
		want   time.Duration
	}{
		{"none", nil, 99, 0},
		{"one", []time.Duration{7}, 50, 7},
		{"one, p0", []time.Duration{7}, 0, 7},
		{"p50 of 100", hundred, 50, 50 * time.Millisecond},
		{"p99 of 100", hundred, 99, 99 * time.Millisecond},
		{"p100 of 100", hundred, 100, 100 * time.Millisecond},
		{"p99 of 3: the largest", []time.Duration{1, 2, 3}, 99, 3},
		{"p50 of 4: the second", []time.Duration{1, 2, 3, 4}, 50, 2},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: percentile(p%d) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}
