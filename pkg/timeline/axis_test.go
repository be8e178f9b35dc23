package timeline_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

func TestScale(t *testing.T) {
	sc := timeline.Scale{Since: start, Until: start.Add(100 * time.Second), Width: 100}
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{-time.Second, 0}, {0, 0}, {999 * time.Millisecond, 0}, {time.Second, 1}, {50 * time.Second, 50}, {100 * time.Second, 99}, {time.Hour, 99}} {
		if got := sc.Column(start.Add(tc.at)); got != tc.want {
			t.Errorf("Column(+%s) = %d, want %d", tc.at, got, tc.want)
		}
	}
	if got := sc.Time(50); !got.Equal(start.Add(50 * time.Second)) {
		t.Errorf("Time(50) = %s", got)
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		since time.Time
		span  time.Duration
		width int
		want  string
	}{
		{"two hours, 100 columns", start, 2 * time.Hour, 100, "08:00@0 08:15@12 08:30@25 08:45@37 09:00@50 09:15@62 09:30@75 09:45@87 10:00@99"},
		{"seconds", start.Add(3 * time.Second), 30 * time.Second, 60, "08:00:10@14 08:00:20@34 08:00:30@54"},
		{"across midnight", start.Add(15 * time.Hour), 2 * time.Hour, 40, "12-06 23:00@0 12-07 00:00@20 12-07 01:00@39"},
	} {
		sc := timeline.Scale{Since: tc.since, Until: tc.since.Add(tc.span), Width: tc.width}
		var got []string
		for _, tk := range sc.Ticks(12, time.UTC) {
			got = append(got, tk.Label+"@"+strconv.Itoa(tk.Column))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, strings.Join(got, " "), tc.want)
		}
	}
}

func TestDensity(t *testing.T) {
	l := &timeline.Lane{Marks: []timeline.Mark{{Time: start}, {Time: start.Add(time.Second)}, {Time: start.Add(9 * time.Second)}, {Time: start.Add(time.Hour)}}}
	sc := timeline.Scale{Since: start, Until: start.Add(10 * time.Second), Width: 5}
	got := sc.Density(func(yield func(*timeline.Lane) bool) { yield(l) })
	if want := []int{2, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("Density = %v, want %v", got, want)
	}
}
