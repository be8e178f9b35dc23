package serve

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
)

// defaultRetention is how long serve --record keeps revisions, and
// defaultMaxSize how much disk a history file may take: a history
// nobody bounded grew a gigabyte every few days on a busy cluster.
const (
	defaultRetention = 7 * 24 * time.Hour
	defaultMaxSize   = 1 << 30
)

// recordFlags are serve's --record and the flags that tune it.
type recordFlags struct {
	Record     bool
	DB         string
	Retention  time.Duration
	SecretData bool
	MaxSize    string
	maxSize    int64                  // MaxSize parsed
	changed    func(name string) bool // a flag was given
	// all: no KIND was given, so --record records every kind the user may
	// list and watch (and those created later).
	all bool
}

func (r *recordFlags) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&r.Record, "record", false, "Record every change of the kinds given (with no KIND: of every kind you may list and watch, those created later too) to a history on disk, for get --at, history and watch --since")
	f.StringVar(&r.DB, "history-db", "", "The history's file, or a PostgreSQL database as postgres://USER@HOST/DB (default: a file per cluster and user under $XDG_STATE_HOME/kubectl-reflect/history)")
	f.DurationVar(&r.Retention, "record-retention", defaultRetention, "How long --record keeps revisions, e.g. 24h (more than 0)")
	f.StringVar(&r.MaxSize, "record-max-size", "", "How much disk a history file may take, e.g. 2Gi: its oldest part is pruned beyond it; 0: no limit (default: 1Gi; a PostgreSQL history is bounded by --record-retention)")
	f.BoolVar(&r.SecretData, "record-secret-data", false, "Record Secrets' data as it is (by default each value is kept as its SHA-256 only)")
	r.changed = func(name string) bool { return f.Changed(name) }
}

// validate refuses tuning without --record, a retention of 0, --record in
// one namespace (namespace, the record of a kind is of every namespace: a
// daemon restarted from it, or its found deletions, must not read one
// namespace's record as the whole), and one --history-db for several
// daemons.
func (r *recordFlags) validate(contexts bool, namespace string) error {
	if !r.Record {
		for _, name := range []string{"history-db", "record-retention", "record-secret-data", "record-max-size"} {
			if r.changed != nil && r.changed(name) {
				return fmt.Errorf("--%s tunes --record: give --record too", name)
			}
		}
		return nil
	}
	switch {
	case r.Retention <= 0:
		return fmt.Errorf("invalid --record-retention %s: want more than 0 (to keep nothing, leave --record out)", r.Retention)
	case !r.parseMaxSize():
		return fmt.Errorf("invalid --record-max-size %q: want a size in bytes, e.g. 512Mi or 2G (0: no limit)", r.MaxSize)
	case namespace != "":
		return fmt.Errorf("--record records every namespace: leave out -n %s (or give -A)", namespace)
	case contexts && r.DB != "":
		return errors.New("--history-db names one history, and each context records to its own: leave it out with several contexts")
	case r.maxSize > 0 && history.IsPostgres(r.DB):
		return errors.New("--record-max-size bounds a history file; a PostgreSQL history is bounded by --record-retention")
	}
	return nil
}

// config is the daemon's recording.Config, nil without --record; with no KIND
// given, it records every kind.
func (r *recordFlags) config() *recording.Config {
	if !r.Record {
		return nil
	}
	return &recording.Config{DB: r.DB, Retention: r.Retention, SecretData: r.SecretData, MaxSize: r.maxSize, AllKinds: r.all}
}

// parseMaxSize reads --record-max-size into maxSize (0 is no limit; ""
// the default, for a history file) and says whether it is one.
func (r *recordFlags) parseMaxSize() bool {
	if r.MaxSize == "" {
		if !history.IsPostgres(r.DB) {
			r.maxSize = defaultMaxSize
		}
		return true
	}
	q, err := resource.ParseQuantity(r.MaxSize)
	if err != nil || q.Sign() < 0 {
		return false
	}
	r.maxSize = q.Value()
	return true
}
