package cmd

import (
	"bytes"
	"fmt"
	"testing"
)

// TestWarningsAsErrors: with --warnings-as-errors, kubectl's error counts
// the distinct warnings printed; without it, or with none, there is none.
func TestWarningsAsErrors(t *testing.T) {
	tests := []struct {
		asErrors bool
		warnings []string
		want     string
	}{
		{false, []string{"a"}, ""},
		{true, nil, ""},
		{true, []string{"a"}, "1 warning received"},
		{true, []string{"a", "a"}, "1 warning received"}, // printed once
		{true, []string{"a", "b"}, "2 warnings received"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.asErrors, tt.warnings), func(t *testing.T) {
			var out bytes.Buffer
			w := newServerWarnings(&out)
			w.asErrors = tt.asErrors
			for _, msg := range tt.warnings {
				w.handler.HandleWarningHeader(299, "-", msg)
			}
			got := ""
			if err := w.err(); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("err() = %q, want %q", got, tt.want)
			}
		})
	}
}
