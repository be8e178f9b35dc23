package moment

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  Moment
		err   bool
	}{
		{"12345", Moment{RV: 12345}, false},
		{"90m", Moment{When: now.Add(-90 * time.Minute)}, false},
		{"0s", Moment{When: now}, false}, // now: the latest state recorded
		{"2026-12-04T07:00:00Z", Moment{When: time.Date(2026, 12, 4, 7, 0, 0, 0, time.UTC)}, false},
		{"0", Moment{}, true}, // not a resourceVersion an object has
		{"-5m", Moment{}, true},
		{"yesterday", Moment{}, true},
		{"", Moment{}, true},
		{"99999999999999999999999", Moment{}, true},
	}
	for _, tc := range tests {
		got, err := Parse("--at", tc.value, now)
		if (err != nil) != tc.err || got.RV != tc.want.RV || !got.When.Equal(tc.want.When) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, error %t", tc.value, got, err, tc.want, tc.err)
		}
	}
}
