package history

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
)

// Changes implements Record.
func (s *sqlStore) Changes(ctx context.Context, res string, from, to uint64, limit int) ([]Revision, error) {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return nil, err
	}
	var out []Revision
	err = s.inTx(ctx, true, func(q querier) error {
		if err := s.coversRange(ctx, q, id, from, to); err != nil {
			return err
		}
		revs, err := changesIn(ctx, q, id, from, to, limit)
		switch {
		case errors.Is(err, ErrTooMany):
			return fmt.Errorf("%w: %d revisions of %s after resourceVersion %d", err, limit, res, from)
		case err != nil:
			return s.readError(res, err)
		}
		out = revs
		return nil
	})
	return out, err
}

// changesIn reads the revisions of resource id after from up to to, in
// order, each object decoded; more than limit (0: no limit) is ErrTooMany.
func changesIn(ctx context.Context, q querier, id int64, from, to uint64, limit int) ([]Revision, error) {
	revs, deltas, err := scanRevisions(q.QueryContext(ctx, `SELECT namespace, name, rv, time, op, manager, base, object, cells
		FROM revisions WHERE resource = ? AND rv > ? AND rv <= ? ORDER BY rv LIMIT ?`, id, from, to, rowLimit(limit)))
	switch {
	case err != nil:
		return nil, err
	case limit > 0 && len(revs) > limit:
		return nil, ErrTooMany
	}
	return revs, undeltaInOrder(ctx, q, id, revs, deltas)
}

// rowLimit is the LIMIT of a query of at most limit rows (0: no limit),
// with one more to tell that there were more.
func rowLimit(limit int) int64 {
	if limit <= 0 {
		return math.MaxInt64
	}
	return int64(limit) + 1
}

// undeltaInOrder decodes the deltas among revs, in resourceVersion order:
// each one against its object's revision before in revs, or, for the
// first of an object whose chain starts before them, from its keyframe.
func undeltaInOrder(ctx context.Context, q querier, id int64, revs []Revision, deltas []delta) error {
	last := map[objectKey][]byte{} // each object's JSON at its revision before
	for i := range revs {
		r := &revs[i]
		key := objectKey{id, r.Namespace, r.Name}
		if len(deltas) > 0 && deltas[0].i == i {
			base := deltas[0].base
			deltas = deltas[1:]
			var err error
			if prev, ok := last[key]; ok {
				r.Object, err = codec.Decode(r.Object, prev)
			} else {
				r.Object, _, err = chain(ctx, q, key, base, r.RV)
			}
			if err != nil {
				return err
			}
		}
		last[key] = r.Object
	}
	return nil
}

// coversRange fails unless the record of resource id holds every change
// after from up to to: from within it (covers) and no gap across.
func (s *sqlStore) coversRange(ctx context.Context, q querier, id int64, from, to uint64) error {
	if err := s.covers(ctx, q, id, from); err != nil {
		return err
	}
	return s.gapWithin(ctx, q, id, from, to)
}
