package runcontroller

import (
	"strings"
	"testing"
	"time"
)

func TestLeaseTimingValidate(t *testing.T) {
	s := time.Second
	tests := []struct {
		name    string
		l       LeaseTiming
		wantErr string
	}{
		{"defaults", LeaseTiming{15 * s, 10 * s, 2 * s}, ""},
		{"short, as the tests run it", LeaseTiming{3 * s, 2 * s, s / 2}, ""},
		{"no retry period", LeaseTiming{15 * s, 10 * s, 0}, "--leader-elect-retry-period must be positive"},
		{"lease not longer than the renew deadline", LeaseTiming{10 * s, 10 * s, 2 * s}, "--leader-elect-lease-duration (10s) must be greater than --leader-elect-renew-deadline (10s)"},
		{"renew deadline within the jittered retry", LeaseTiming{15 * s, 2 * s, 2 * s}, "--leader-elect-renew-deadline (2s) must be greater than 1.2 times --leader-elect-retry-period (2s)"},
	}
	for _, tt := range tests {
		err := tt.l.validate()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}
