package diff

import (
	"slices"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/internal/moment"
)

// TestSides: the states compared and how the output names them: one
// context's two moments (the second now unless given), or each context,
// now or at the one moment.
func TestSides(t *testing.T) {
	at := moment.Moment{When: time.Date(2026, 12, 4, 7, 0, 0, 0, time.FixedZone("CET", 3600))}
	rv := moment.Moment{RV: 4211}
	one := []*source{{}}
	two := []*source{{context: "east"}, {context: "west"}}
	for _, tt := range []struct {
		name     string
		contexts []string
		sources  []*source
		moments  []moment.Moment
		want     []string
		now      []bool
	}{
		{"a moment and now", nil, one, []moment.Moment{at}, []string{"2026-12-04T06:00:00Z", "now"}, []bool{false, true}},
		{"two moments", nil, one, []moment.Moment{rv, at}, []string{"resourceVersion 4211", "2026-12-04T06:00:00Z"}, []bool{false, false}},
		{"contexts now", []string{"east", "west"}, two, nil, []string{"east", "west"}, []bool{true, true}},
		{"contexts at a time", []string{"east", "west"}, two, []moment.Moment{at}, []string{"east at 2026-12-04T06:00:00Z", "west at 2026-12-04T06:00:00Z"}, []bool{false, false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := &DiffOptions{contexts: tt.contexts, sources: tt.sources, moments: tt.moments}
			var labels []string
			var now []bool
			for _, sd := range o.sides() {
				labels, now = append(labels, sd.label), append(now, sd.moment == nil)
			}
			if !slices.Equal(labels, tt.want) || !slices.Equal(now, tt.now) {
				t.Errorf("sides %q (now %v), want %q (now %v)", labels, now, tt.want, tt.now)
			}
		})
	}
}
