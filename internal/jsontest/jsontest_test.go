package jsontest

import "testing"

func TestDuplicateKeys(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":1,"b":2}`, false},
		{`{"a":1,"a":2}`, true},
		{`{"a":1,"\u0061":2}`, true},
		{`{"a":{"b":1},"c":{"b":2}}`, false},
		{`{"a":[{"b":1,"b":2}]}`, true},
		{`[{"a":1},{"a":1}]`, false},
		{`{"a":{},"b":[],"a":0}`, true},
		{`{"a":`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := DuplicateKeys([]byte(tt.in)); got != tt.want {
			t.Errorf("DuplicateKeys(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
