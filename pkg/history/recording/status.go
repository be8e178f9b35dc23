package recording

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// Status is what a recording daemon says of its history at
// /debug/history (serve status prints it): where the record begins and
// why, what it takes against its bounds, and what each kind wrote in the
// last hour.
type Status struct {
	Location string `json:"location"`
	// Begins is where the whole record begins (its oldest write kept);
	// Why says why: recording began then, or older revisions were pruned
	// (to stay under MaxSize, or after Retention). Zero when nothing is
	// recorded yet.
	Begins   time.Time `json:"begins,omitzero"`
	BeginsRV uint64    `json:"beginsResourceVersion,omitempty"`
	Why      string    `json:"why,omitempty"`
	// Size is what the history's pages in use take (what MaxSize bounds),
	// FileSize the file (SQLite keeps its largest size and reuses the
	// pages freed); 0 when the history has no file (PostgreSQL).
	Size     int64 `json:"size,omitempty"`
	FileSize int64 `json:"fileSize,omitempty"`
	// MaxSize and Retention are the bounds (serve --record-max-size, 0: no
	// limit; --record-retention).
	MaxSize   int64         `json:"maxSize,omitempty"`
	Retention time.Duration `json:"retention"`
	// Since is when the hour of Usage began (to the minute), Usage what
	// each resource's record grew by since (history.Record.Usage).
	Since time.Time       `json:"since"`
	Usage []history.Usage `json:"usage"`
}

// usageWindow is the stretch serve status reports each kind's writes over.
const usageWindow = time.Hour

// sized is a history whose file's size it can tell (history.SQLite.Size).
type sized interface {
	Size(ctx context.Context) (used, file int64, err error)
}

// status reads r's Status.
func (r *Recording) status(ctx context.Context) (*Status, error) {
	now := time.Now()
	st := &Status{Location: r.store.Location(), MaxSize: r.cfg.MaxSize, Retention: r.cfg.Retention,
		Since: now.Add(-usageWindow).Truncate(time.Minute)}
	b, err := r.store.Begins(ctx, "")
	switch {
	case errors.Is(err, history.ErrNotRecorded):
	case err != nil:
		return nil, err
	default:
		st.Begins, st.BeginsRV, st.Why = b.Time, b.RV, b.Why()
	}
	if s, ok := r.store.(sized); ok {
		if st.Size, st.FileSize, err = s.Size(ctx); err != nil {
			return nil, err
		}
	}
	if st.Usage, err = r.store.Usage(ctx, st.Since); err != nil {
		return nil, err
	}
	return st, nil
}

// Handler answers /debug/history with r's Status (null when the
// daemon does not record) and passes the rest to next.
func (r *Recording) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.TrimSuffix(req.URL.Path, "/") != "/debug/history" {
			next.ServeHTTP(w, req)
			return
		}
		var st *Status
		if r != nil && !r.failed {
			var err error
			if st, err = r.status(req.Context()); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	})
}

// moved says once, when a prune moved where the record begins, where it
// begins now and why. The first call (before the first prune) only
// notes where it begins.
func (r *Recording) moved(ctx context.Context) {
	b, err := r.store.Begins(ctx, "")
	if err != nil {
		return // nothing recorded yet, or a failed read: the next prune tells
	}
	r.mu.Lock()
	last := r.begins
	r.begins = &b
	r.mu.Unlock()
	if last == nil || b.Pruned == nil || b.RV == last.RV {
		return
	}
	r.say("history: the record now begins at %s (%s)\n", b.Time.UTC().Format(time.RFC3339), b.Why())
}

// Print writes h as serve status shows it: where the record begins and
// why, its size against its bounds, then a table of what each resource
// wrote in the last hour.
func (h *Status) Print(w io.Writer) error {
	if h.BeginsRV == 0 {
		fmt.Fprintln(w, "The record is empty: nothing written yet")
	} else {
		b := history.Beginning{RV: h.BeginsRV, Time: h.Begins}
		fmt.Fprintf(w, "The record begins at %s: %s\n", b, h.Why)
	}
	size := "no limit"
	if h.MaxSize > 0 {
		size = "at most " + quantity(h.MaxSize)
	}
	if h.FileSize > 0 {
		size = fmt.Sprintf("%s in use of %s (the file: %s)", humanBytes(h.Size), size, humanBytes(h.FileSize))
	} else {
		size = "not bounded by size (PostgreSQL)"
	}
	fmt.Fprintf(w, "Size: %s, kept %s\n\n", size, h.Retention)
	rows := make([][]string, 0, len(h.Usage)+1)
	var total history.Usage
	for _, u := range h.Usage {
		rows = append(rows, []string{displayName(u.Resource), strconv.FormatInt(u.Revisions, 10), humanBytes(u.Bytes)})
		total.Revisions += u.Revisions
		total.Bytes += u.Bytes
	}
	rows = append(rows, []string{"total", strconv.FormatInt(total.Revisions, 10), humanBytes(total.Bytes)})
	fmt.Fprintf(w, "Written since %s (the last hour):\n", h.Since.UTC().Format(time.RFC3339))
	return output.PlainTable(w, []string{"RESOURCE", "REVISIONS", "BYTES"}, rows)
}

// displayName is a history's resource name ("leases.v1.coordination.k8s.io")
// as kubectl writes a resource: "leases.coordination.k8s.io", "pods".
func displayName(res string) string {
	resource, rest, _ := strings.Cut(res, ".")
	if _, group, _ := strings.Cut(rest, "."); group != "" {
		return resource + "." + group
	}
	return resource
}

// humanBytes is a size in bytes, in KiB and MiB past 1024 (812, 13.4Ki,
// 1.2Mi).
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10)
	case n < 1<<20:
		return fmt.Sprintf("%.1fKi", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1fMi", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1fGi", float64(n)/(1<<30))
}
