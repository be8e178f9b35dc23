//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/blame/blametest"
)

// historyBlameLimit is blame's target: seconds to exit (issue 49).
const historyBlameLimit = 0.2

// blameRecordSizes are the records the blame-by-size rows read (issue 49:
// under 200 ms from a record of 1,000,000 revisions, and no more work for
// a record of other objects a hundred times larger), with their rows' keys.
var blameRecordSizes = []struct {
	revisions int
	key       string
}{{10_000, "history.blame.10k"}, {1_000_000, "history.blame.1m"}}

// blameRecordResult is `blame` and `blame --field` of one Deployment of
// blametest.PerObject revisions in a record of revisions revisions.
type blameRecordResult struct {
	revisions    int
	key          string        // its rows' key
	written      time.Duration // writing the record (not counted)
	bytes        int64         // the record's files (filesSize)
	whole, field []getSample
}

// timeBlames times `blame cm/NAME` and `blame cm/NAME --field
// data.payload` of the ConfigMap sizePerRevision edited historyEdits
// times, from the history alone (no daemon runs), taking turns.
func (he *historyEnv) timeBlames(ctx context.Context, r *historyResult) error {
	whole := []string{"blame", "cm/" + objectName(1), "-n", he.namespace, "--kubeconfig", he.kubeconfig}
	return he.blameTurns(ctx, whole, "data.payload", &r.blame, &r.blameField)
}

// timeBlameRecords writes blametest's record at each of blameRecordSizes
// into a temporary directory (not counted) and times `blame
// deployments.apps/NAME` and its `--field` of one Deployment in it, from
// the record alone, the kind resolved by the bench's API server.
func (he *historyEnv) timeBlameRecords(ctx context.Context) ([]blameRecordResult, error) {
	dir, err := os.MkdirTemp("", "kubectl-reflect-bench-blame-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var rs []blameRecordResult
	for _, size := range blameRecordSizes {
		r := blameRecordResult{revisions: size.revisions, key: size.key}
		db := filepath.Join(dir, fmt.Sprintf("blame-%d.db", size.revisions))
		began := time.Now()
		if err := blametest.Record(ctx, db, size.revisions); err != nil {
			return nil, fmt.Errorf("writing a record of %d revisions: %w", size.revisions, err)
		}
		r.written = time.Since(began)
		if r.bytes, err = filesSize(db); err != nil {
			return nil, err
		}
		he.logf("history: blame's record of %s revisions written in %s", count(size.revisions), r.written.Round(time.Millisecond))
		whole := []string{"blame", "deployments.apps/" + blametest.Name(7), "-n", blametest.Namespace, "--history-db", db, "--kubeconfig", he.kubeconfig}
		if err := he.blameTurns(ctx, whole, blametest.Field, &r.whole, &r.field); err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// blameTurns times whole (a blame command) and the same with --field
// field, a warm-up and then cfg.repeat times each, taking turns.
func (he *historyEnv) blameTurns(ctx context.Context, whole []string, field string, wholes, fields *[]getSample) error {
	withField := append(append([]string{}, whole...), "--field", field)
	for i := -1; i < he.cfg.repeat; i++ { // -1 warms up
		for _, args := range [][]string{whole, withField} {
			s, err := timeToExit(ctx, he.env, he.tools.reflect, args)
			if err == nil && s.lines < 10 {
				err = fmt.Errorf("printed %d lines", s.lines)
			}
			if err != nil {
				return fmt.Errorf("%v: %w", args, err)
			}
			switch {
			case i < 0:
			case len(args) == len(whole):
				*wholes = append(*wholes, s)
			default:
				*fields = append(*fields, s)
			}
		}
	}
	return nil
}
