package cmd

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC: without GOGC, TuneGC sets gcPercent; with it, the user's
// choice (which the runtime read at start) stays.
func TestTuneGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	env, had := os.LookupEnv("GOGC")
	defer func() {
		if had {
			os.Setenv("GOGC", env)
		} else {
			os.Unsetenv("GOGC")
		}
	}()
	tests := []struct {
		name string
		gogc *string
		want int
	}{
		{"unset", nil, gcPercent},
		{"set", new("200"), 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			if tt.gogc == nil {
				os.Unsetenv("GOGC")
			} else {
				os.Setenv("GOGC", *tt.gogc)
			}
			TuneGC()
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent %d, want %d", got, tt.want)
			}
		})
	}
}
