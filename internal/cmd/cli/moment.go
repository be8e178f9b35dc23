package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// Moment is a point of a history that a flag names (get --at, watch
// --since): a resourceVersion, or a time.
type Moment struct {
	RV   uint64
	When time.Time
}

var digits = regexp.MustCompile(`^[0-9]+$`)

// ParseMoment reads the value of flag (its name, for the error): a
// resourceVersion (digits), a duration ago (1h30m; 0s is now) or a time
// (RFC 3339).
func ParseMoment(flag, value string, now time.Time) (Moment, error) {
	if digits.MatchString(value) {
		if rv, err := strconv.ParseUint(value, 10, 64); err == nil && rv > 0 {
			return Moment{RV: rv}, nil
		}
	} else {
		if d, err := time.ParseDuration(value); err == nil && d >= 0 {
			return Moment{When: now.Add(-d)}, nil
		}
		if t, err := time.Parse(time.RFC3339, value); err == nil {
			return Moment{When: t}, nil
		}
	}
	return Moment{}, fmt.Errorf("invalid %s %q: want a time (2026-12-04T07:00:00Z), a duration ago (90m) or a resourceVersion", flag, value)
}

// In is the resourceVersion m names in s, and the time it names (for a
// resourceVersion, when s recorded it; now when s does not know).
func (m Moment) In(ctx context.Context, s history.Store, flag string) (uint64, time.Time, error) {
	if m.RV != 0 {
		when, err := s.TimeOf(ctx, m.RV)
		if when.IsZero() {
			when = time.Now()
		}
		return m.RV, when, err
	}
	rv, err := s.ResourceVersionAt(ctx, m.When)
	var before *history.BeforeError
	if errors.As(err, &before) {
		return 0, time.Time{}, fmt.Errorf("%s %s: %w", flag, m.When.UTC().Format(time.RFC3339), err)
	}
	return rv, m.When, err
}
