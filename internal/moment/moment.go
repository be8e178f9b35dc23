package moment

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// Parse reads the value of flag (its name, for the error): a
// resourceVersion (digits), a duration ago (1h30m; 0s is now) or a time
// (RFC 3339).
func Parse(flag, value string, now time.Time) (Moment, error) {
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
func (m Moment) In(ctx context.Context, s history.Record, flag string) (uint64, time.Time, error) {
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

// For is what s knows of res (history.ResourceName) at m, given rv, the
// resourceVersion In returned: for a time, the resourceVersion whose state
// is res's then and the changes that may or may not have happened by then
// (history.Record.MomentAt); a resourceVersion is exact.
func (m Moment) For(ctx context.Context, s history.Record, res string, rv uint64) (history.Moment, error) {
	if m.RV != 0 {
		return history.Moment{RV: rv}, nil
	}
	return s.MomentAt(ctx, res, m.When)
}

// Uncertain says, on w, which objects of kind (those keep wants) may or
// may not have changed by when (hm.Uncertain: changes seen late, dated
// within a window), one warning line each, printed as they were before;
// strict makes it one error instead.
func Uncertain(w io.Writer, kind fmt.Stringer, when time.Time, hm history.Moment, keep func(namespace, name string) bool, strict bool) error {
	type window struct {
		key          string
		since, until time.Time
		rv           uint64
	}
	var objects []*window
	byKey := map[string]*window{}
	for _, r := range hm.Uncertain {
		if !keep(r.Namespace, r.Name) {
			continue
		}
		key := r.Name
		if r.Namespace != "" {
			key = r.Namespace + "/" + r.Name
		}
		if o, ok := byKey[key]; ok {
			o.until, o.rv = r.Time, r.RV
			continue
		}
		o := &window{key: key, since: r.Since, until: r.Time, rv: r.RV}
		byKey[key] = o
		objects = append(objects, o)
	}
	if len(objects) == 0 {
		return nil
	}
	say := func(o *window) string {
		return fmt.Sprintf("%s %s changed at a time between %s and %s (seen late, after a restart)", kind, o.key, stamp(o.since), stamp(o.until))
	}
	if strict {
		more := ""
		if len(objects) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(objects)-1)
		}
		return fmt.Errorf("the state at %s is not known exactly: %s%s", stamp(when), say(objects[0]), more)
	}
	for _, o := range objects {
		fmt.Fprintf(w, "warning: %s: printed as it was before it (--strict: an error)\n", say(o))
	}
	return nil
}

// stamp is t as the history prints times.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
