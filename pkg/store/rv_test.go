package store

import "testing"

// TestRV: resourceVersions compare as numbers, not as strings; one that
// is not a number sorts last and never wins MaxRV.
func TestRV(t *testing.T) {
	tests := []struct {
		a, b string
		cmp  int
		max  string
	}{
		{"9", "10", -1, "10"},
		{"10", "9", 1, "10"},
		{"7", "7", 0, "7"},
		{"7", "x", -1, "7"},
		{"x", "7", 1, "7"},
		{"x", "y", 0, "y"},
	}
	for _, tt := range tests {
		if got := CompareRV(tt.a, tt.b); got != tt.cmp {
			t.Errorf("CompareRV(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.cmp)
		}
		if got := MaxRV(tt.a, tt.b); got != tt.max {
			t.Errorf("MaxRV(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.max)
		}
	}
	if n, ok := ParseRV("42"); n != 42 || !ok {
		t.Errorf("ParseRV(42) = %d, %v", n, ok)
	}
	if _, ok := ParseRV("-1"); ok {
		t.Error("ParseRV(-1) is a number")
	}
}
