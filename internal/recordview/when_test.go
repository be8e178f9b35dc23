package recordview

import (
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

func TestWhen(t *testing.T) {
	base := time.Date(2026, 12, 6, 0, 4, 20, 0, time.UTC)
	for _, tc := range []struct {
		name         string
		since, until time.Time
		want         string
	}{
		{name: "seen as it happened", until: base.Add(300 * time.Millisecond), want: "2026-12-06T00:04:20Z"},
		{name: "dated by the server to its second", since: base, until: base.Add(time.Second), want: "2026-12-06T00:04:20Z"},
		{name: "within one second", since: base.Add(400 * time.Millisecond), until: base.Add(900 * time.Millisecond), want: "2026-12-06T00:04:20Z"},
		{name: "a window", since: base, until: base.Add(34 * time.Second), want: "2026-12-06T00:04:20Z/00:04:54Z"},
		{name: "a window across midnight", since: base, until: base.Add(24 * time.Hour), want: "2026-12-06T00:04:20Z/2026-12-07T00:04:20Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := When(history.Revision{Since: tc.since, Time: tc.until}); got != tc.want {
				t.Errorf("When = %q, want %q", got, tc.want)
			}
		})
	}
}
