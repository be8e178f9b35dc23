package timeline

import "time"

// Scale maps the times of [Since, Until] to Width columns (or pixels).
type Scale struct {
	Since, Until time.Time
	Width        int
}

// Column is the column t falls in, clamped to [0, Width).
func (s Scale) Column(t time.Time) int {
	span := s.Until.Sub(s.Since)
	if span <= 0 || s.Width <= 0 {
		return 0
	}
	c := int(float64(t.Sub(s.Since)) / float64(span) * float64(s.Width))
	return max(0, min(s.Width-1, c))
}

// Time is the time column c starts at.
func (s Scale) Time(c int) time.Time {
	if s.Width <= 0 {
		return s.Since
	}
	return s.Since.Add(time.Duration(float64(s.Until.Sub(s.Since)) * float64(c) / float64(s.Width)))
}

// Density counts the marks of lanes in each column (a density row).
func (s Scale) Density(lanes func(yield func(*Lane) bool)) []int {
	out := make([]int, max(s.Width, 0))
	if s.Width <= 0 {
		return out
	}
	for l := range lanes {
		for _, m := range l.Marks {
			if !m.Time.Before(s.Since) && !m.Time.After(s.Until) {
				out[s.Column(m.Time)]++
			}
		}
	}
	return out
}

// Tick is a labelled time on the axis.
type Tick struct {
	Column int
	Time   time.Time
	Label  string
}

// steps are the intervals a time axis is labelled at.
var steps = []time.Duration{
	time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// Ticks labels the axis at the smallest round interval (a second to a
// day) that leaves at least gap columns between labels, times read in
// loc; labels carry seconds when the interval is under a minute and the
// date when the span crosses a day.
func (s Scale) Ticks(gap int, loc *time.Location) []Tick {
	span := s.Until.Sub(s.Since)
	if span <= 0 || s.Width <= 0 {
		return nil
	}
	step := steps[len(steps)-1]
	for _, st := range steps {
		if float64(s.Width)*float64(st)/float64(span) >= float64(gap) {
			step = st
			break
		}
	}
	layout := "15:04"
	switch {
	case step < time.Minute:
		layout = "15:04:05"
	case s.Since.In(loc).YearDay() != s.Until.In(loc).YearDay() || span > 24*time.Hour:
		layout = "01-02 15:04"
	}
	var out []Tick
	_, offset := s.Since.In(loc).Zone()
	zone := time.Duration(offset) * time.Second
	first := s.Since.Add(zone).Truncate(step).Add(-zone)
	if first.Before(s.Since) {
		first = first.Add(step)
	}
	for t := first; !t.After(s.Until); t = t.Add(step) {
		out = append(out, Tick{Column: s.Column(t), Time: t, Label: t.In(loc).Format(layout)})
	}
	return out
}
