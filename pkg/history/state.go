package history

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/internal/codec"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/internal/parallel"
)

// Reading a state. A state is the checkpoint nearest to its
// resourceVersion with the objects changed between them replaced (their
// overrides), or, without a checkpoint, each object's latest revision. It
// goes to its reader a part of the checkpoint at a time, on several
// goroutines, each part decoded into a buffer its goroutine reuses for the
// next one: a warm restart and get --at never hold a whole state's JSON,
// which at 100,000 objects of 1 KiB is 150 MB that a process first has to
// touch (on a VM whose memory the host backs on demand, about a second).

// EachAt implements Record.
func (s *sqlStore) EachAt(ctx context.Context, res string, rv uint64, workers int, fn func(w int, batch []Revision) error) error {
	return s.eachAt(ctx, res, rv, stream{workers: max(workers, 1), reuse: true, fn: fn})
}

// StateAt implements Record.
func (s *sqlStore) StateAt(ctx context.Context, res string, rv uint64) ([]Revision, error) {
	var out []Revision
	err := s.eachAt(ctx, res, rv, collect(&out))
	return out, err
}

func (s *sqlStore) eachAt(ctx context.Context, res string, rv uint64, st stream) error {
	id, err := s.resourceID(ctx, s.conn(), res)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, true, func(q querier) error {
		if err := s.covers(ctx, q, id, rv); err != nil {
			return err
		}
		if err := s.stateEach(ctx, q, id, rv, st); err != nil {
			return s.readError(res, err)
		}
		return nil
	})
	var fe readerError
	if errors.As(err, &fe) {
		return fe.err // the reader's own, not the store's
	}
	return err
}

// stream is where a state goes: fn on up to workers goroutines at once (w
// says which), each batch valid during its call only when reuse is set.
type stream struct {
	workers int
	reuse   bool
	fn      func(w int, batch []Revision) error
}

// collect is a stream that appends a state to out, its bytes kept.
func collect(out *[]Revision) stream {
	return stream{workers: 1, fn: func(_ int, batch []Revision) error {
		*out = append(*out, batch...)
		return nil
	}}
}

// readerError is an error of stream.fn, told apart from the store's.
type readerError struct{ err error }

func (e readerError) Error() string { return e.err.Error() }

func (st stream) call(w int, batch []Revision) error {
	if err := st.fn(w, batch); err != nil {
		return readerError{err}
	}
	return nil
}

// all gives revs to the stream, split among its goroutines.
func (st stream) all(revs []Revision) error {
	workers := min(st.workers, parallel.Workers(len(revs)))
	return parallel.Chunks(len(revs), workers, func(w, lo, hi int) error {
		if lo == hi {
			return nil
		}
		return st.call(w, revs[lo:hi])
	})
}

// stateEach gives the state of resource id at rv (its record checked) to
// st.
func (s *sqlStore) stateEach(ctx context.Context, q querier, id int64, rv uint64, st stream) error {
	cp, ok, err := s.nearestCheckpoint(ctx, q, id, rv)
	if err != nil {
		return err
	}
	if !ok {
		revs, err := s.latestRevisions(ctx, q, id, rv)
		if err != nil {
			return err
		}
		return st.all(revs)
	}
	over, err := overridesAt(ctx, q, id, cp, rv)
	if err != nil {
		return err
	}
	if err := eachPart(ctx, q, id, cp, st, over); err != nil {
		return err
	}
	return st.all(over.present())
}

// nsName is an object's namespace and name, a map key that a lookup
// builds without allocating.
type nsName struct{ namespace, name string }

// overrides are the objects whose state at a resourceVersion differs from
// a checkpoint's: each one's revision then, nil where it did not exist.
type overrides map[nsName]*Revision

// overridesAt reads the overrides of resource id's checkpoint at cp for
// the state at rv: after cp, the last of the changes since; before it,
// the revision at rv of each object changed between them.
func overridesAt(ctx context.Context, q querier, id int64, cp, rv uint64) (overrides, error) {
	over := overrides{}
	if cp <= rv {
		changes, err := changesIn(ctx, q, id, cp, rv, 0)
		if err != nil {
			return nil, err
		}
		for i := range changes {
			c := &changes[i]
			over[nsName{c.Namespace, c.Name}] = nil
			if c.Op != Deleted {
				over[nsName{c.Namespace, c.Name}] = c
			}
		}
		return over, nil
	}
	keys, err := changedKeys(ctx, q, id, rv, cp)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		r, ok, err := revisionAt(ctx, q, k, rv)
		if err != nil {
			return nil, err
		}
		over[nsName{k.namespace, k.name}] = nil
		if ok && r.Op != Deleted {
			over[nsName{k.namespace, k.name}] = &r
		}
	}
	return over, nil
}

// skips says whether r, of a checkpoint, is overridden.
func (o overrides) skips(r Revision) bool {
	_, ok := o[nsName{r.Namespace, r.Name}]
	return ok
}

// present are the overrides that exist.
func (o overrides) present() []Revision {
	var out []Revision
	for _, r := range o {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// changedKeys are the objects of resource id with a revision after from
// up to to.
func changedKeys(ctx context.Context, q querier, id int64, from, to uint64) ([]objectKey, error) {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT namespace, name FROM revisions WHERE resource = ? AND rv > ? AND rv <= ?`, id, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []objectKey
	for rows.Next() {
		k := objectKey{resource: id}
		if err := rows.Scan(&k.namespace, &k.name); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// eachPart gives the entries of resource id's checkpoint at cp that over
// does not override to st: this goroutine reads the parts, and each of
// st's goroutines decodes one part at a time and gives it to st.fn. A
// part read is copied into one of a few buffers that go round (the
// driver's bytes are valid until the next row).
func eachPart(ctx context.Context, q querier, id int64, cp uint64, st stream, over overrides) error {
	rows, err := q.QueryContext(ctx, `SELECT data FROM checkpoints WHERE resource = ? AND rv = ? ORDER BY part`, id, cp)
	if err != nil {
		return err
	}
	defer rows.Close()
	free := make(chan []byte, st.workers+1)
	for range st.workers + 1 {
		free <- nil
	}
	parts := make(chan []byte)
	g, gctx := errgroup.WithContext(ctx)
	for w := range st.workers {
		g.Go(func() error {
			var (
				buf  []byte
				revs []Revision
				es   []codec.Entry
			)
			for p := range parts {
				if !st.reuse {
					buf, revs = nil, nil
				}
				var err error
				revs, es, buf, err = decodePart(revs[:0], es, buf, p)
				free <- p
				if err != nil {
					return err
				}
				if err := st.call(w, slices.DeleteFunc(revs, over.skips)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	err = readParts(gctx, rows, free, parts)
	if werr := g.Wait(); werr != nil {
		err = werr // the reading stopped for it
	}
	return err
}

// readParts sends each part of rows to parts, in a buffer from free, and
// closes parts at the end; it stops when ctx ends (the caller's, or a
// worker failed).
func readParts(ctx context.Context, rows *sql.Rows, free, parts chan []byte) error {
	defer close(parts)
	for rows.Next() {
		var raw sql.RawBytes
		if err := rows.Scan(&raw); err != nil {
			return err
		}
		var p []byte
		select {
		case p = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case parts <- append(p[:0], raw...):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return rows.Err()
}
