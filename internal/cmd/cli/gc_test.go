package cli

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC: a command that holds whole objects runs with
// wholeObjectsGCPercent unless GOGC is set (the runtime read it at start);
// one that holds a table's metadata keeps the default.
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
		name  string
		gogc  *string
		whole bool
		want  int
	}{
		{"whole objects", nil, true, wholeObjectsGCPercent},
		{"whole objects, GOGC set", new("200"), true, 100},
		{"a table", nil, false, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			if tt.gogc == nil {
				os.Unsetenv("GOGC")
			} else {
				os.Setenv("GOGC", *tt.gogc)
			}
			TuneGC(tt.whole)
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent %d, want %d", got, tt.want)
			}
		})
	}
}
