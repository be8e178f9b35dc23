package history

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/klauspost/compress/s2"
)

// headsTable keeps the sums of a store's chain heads (heads.go) from a
// writer's Close to the next writer's Open, which takes them out: a
// daemon restarted then encodes each object's next revision against the
// JSON its recorder gives (Revision.Before) without reading the object's
// chain back, one query each (most of what recording a change cost in
// the bench's rounds after a restart). A writer that ends without Close
// (SIGKILL) leaves none: the next one reads each chain once, as before;
// a row is also kept only while its resource's record ends where it did
// when saved (rv), against a writer that did not take it (an older
// kubectl-reflect). Like the checkpoints' table, it is made in a history
// of any age when opened to write.
const headsTable = `CREATE TABLE IF NOT EXISTS heads (
	resource BIGINT PRIMARY KEY,
	rv BIGINT NOT NULL,
	data %s NOT NULL
)`

// savedHeadsVersion starts a heads row's data: its encoding.
const savedHeadsVersion = 1

// maxSavedHeads bounds what a heads row may claim to decode to, so that a
// damaged row fails instead of allocating the up to 4 GiB its s2 header
// can claim: maxSums sums of 350 bytes (a namespace of 63 bytes, a name
// of 253, three numbers). A longer row is dropped: it only spares reads.
const maxSavedHeads = maxSums * 350

// takeHeads makes the heads' table, and moves the sums saved there into
// memory: a row is read by one writer at most, and only before it writes,
// so that no sum outlives a change it does not describe.
func (s *sqlStore) takeHeads(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf(headsTable, s.dialect.blob)); err != nil {
		return fmt.Errorf("making the heads' table: %w", err)
	}
	if err := s.readHeads(ctx); err != nil { // a table of another shape: it only spares reads, so it goes
		s.heads.forget()
		_, err = s.db.ExecContext(ctx, `DROP TABLE heads`)
		if err == nil {
			_, err = s.db.ExecContext(ctx, fmt.Sprintf(headsTable, s.dialect.blob))
		}
		if err != nil {
			return fmt.Errorf("making the heads' table: %w", err)
		}
	}
	return nil
}

// readHeads moves the sums saved into memory.
func (s *sqlStore) readHeads(ctx context.Context) error {
	return s.inTx(ctx, false, func(q querier) error {
		rows, err := q.QueryContext(ctx, `SELECT h.resource, h.data FROM heads h JOIN resources r ON r.id = h.resource AND r.latest = h.rv`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				id   int64
				data []byte
			)
			if err := rows.Scan(&id, &data); err != nil {
				return err
			}
			_ = s.heads.restore(id, data) // one that does not decode is dropped: its chains are read
		}
		if err := rows.Err(); err != nil {
			return err
		}
		_, err = q.ExecContext(ctx, `DELETE FROM heads`)
		return err
	})
}

// saveHeads writes the sums in memory to the heads' table, for the next
// writer (Close).
func (s *sqlStore) saveHeads() error {
	saved := s.heads.save()
	if len(saved) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.inTx(ctx, false, func(q querier) error {
		for id, data := range saved {
			if _, err := q.ExecContext(ctx, `INSERT INTO heads (resource, rv, data) SELECT id, latest, ? FROM resources WHERE id = ?
				ON CONFLICT (resource) DO UPDATE SET rv = excluded.rv, data = excluded.data`, data, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("keeping its chain heads in %s for the next start (it will read them back): %w", s.location, err)
	}
	return nil
}

// save encodes the sums kept, by resource: after a version byte, each
// one's namespace and name (each a uvarint length and bytes), frame,
// depth (uvarints) and sum (8 bytes, little-endian), as one s2 block.
func (h *heads) save() map[int64][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	raw := map[int64][]byte{}
	for k, s := range h.sums {
		b, ok := raw[k.resource]
		if !ok {
			b = []byte{savedHeadsVersion}
		}
		b = binary.AppendUvarint(b, uint64(len(k.namespace)))
		b = append(b, k.namespace...)
		b = binary.AppendUvarint(b, uint64(len(k.name)))
		b = append(b, k.name...)
		b = binary.AppendUvarint(b, s.frame)
		b = binary.AppendUvarint(b, uint64(s.depth))
		raw[k.resource] = binary.LittleEndian.AppendUint64(b, s.sum)
	}
	for id, b := range raw {
		raw[id] = s2.Encode(nil, b)
	}
	return raw
}

// errSavedHeads is a heads row that does not decode.
var errSavedHeads = errors.New("saved heads do not decode")

// restore adds the sums of resource id that save encoded, all or none.
func (h *heads) restore(id int64, data []byte) error {
	if n, err := s2.DecodedLen(data); err != nil || n > maxSavedHeads {
		return errSavedHeads
	}
	b, err := s2.Decode(nil, data)
	if err != nil || len(b) == 0 || b[0] != savedHeadsVersion {
		return errSavedHeads
	}
	sums := map[objectKey]headSum{}
	for r := (savedReader{b: b[1:]}); len(r.b) > 0; {
		k := objectKey{resource: id, namespace: r.text(), name: r.text()}
		s := headSum{frame: r.uvarint(), depth: int(r.uvarint()), sum: r.uint64()}
		if r.bad {
			return errSavedHeads
		}
		sums[k] = s
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, s := range sums {
		if len(h.sums) >= maxSums {
			break
		}
		h.sums[k] = s
	}
	return nil
}

// savedReader reads what save wrote; bad once it ran short.
type savedReader struct {
	b   []byte
	bad bool
}

func (r *savedReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *savedReader) text() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *savedReader) uint64() uint64 {
	if len(r.b) < 8 {
		r.bad, r.b = true, nil
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}
