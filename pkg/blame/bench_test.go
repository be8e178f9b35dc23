package blame

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// BenchmarkBlame is blame's work on one Deployment of 100 revisions in an
// SQLite record of 10,000 and of 1,000,000 revisions (100 and 10,000
// Deployments of about 1.5 KiB, 100 revisions each, written in turn so
// that one object's revisions are spread over the file): reading the
// object's revisions (the history's Revisions: the revisions table's key
// starts with the object), its Blame, its Log of a field, and the three
// with the history opened, as the command does. The object's work should
// be the same at both sizes. Building the record of 1,000,000 takes a few
// minutes: -short keeps to 10,000.
func BenchmarkBlame(b *testing.B) {
	sizes := []int{10_000, 1_000_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, size := range sizes {
		path := benchRecord(b, size)
		b.Run(fmt.Sprintf("revisions=%d", size), func(b *testing.B) { benchmarkBlame(b, path) })
	}
}

// perObject is how many revisions each object of the bench's record has.
const perObject = 100

func benchmarkBlame(b *testing.B, path string) {
	ctx := context.Background()
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	field, _ := ParseField("spec.template.spec.containers[0].image")
	read := func(s history.Record) []history.Revision {
		revs, err := s.Revisions(ctx, "deployments.v1.apps", "default", benchName(7))
		if err != nil || len(revs) != perObject {
			b.Fatalf("%d revisions, %v", len(revs), err)
		}
		return revs
	}
	revs := read(s)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			read(s)
		}
	})
	b.Run("blame", func(b *testing.B) {
		for b.Loop() {
			if _, err := Blame(revs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("log", func(b *testing.B) {
		for b.Loop() {
			if len(Log(revs, field)) == 0 {
				b.Fatal("no entry")
			}
		}
	})
	b.Run("open+read+blame+log", func(b *testing.B) {
		for b.Loop() {
			s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			revs := read(s)
			if _, err := Blame(revs); err != nil {
				b.Fatal(err)
			}
			Log(revs, field)
			s.Close()
		}
	})
}

func benchName(i int) string { return fmt.Sprintf("web-%05d", i) }

// benchRecord writes a record of size revisions, once per process; in
// $BLAME_BENCH_DIR when set, kept there and read again by the next run
// (as blame-SIZE.db: a history the command itself can be timed on).
func benchRecord(b *testing.B, size int) string {
	if path, ok := benchRecords[size]; ok {
		return path
	}
	dir := os.Getenv("BLAME_BENCH_DIR")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "blame-bench"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	path := filepath.Join(dir, fmt.Sprintf("blame-%d.db", size))
	if _, err := os.Stat(path); err != nil {
		start := time.Now()
		if err := writeRecord(path+".tmp", size/perObject); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
		b.Logf("a record of %d revisions written in %s", size, time.Since(start).Round(time.Second))
	}
	benchRecords[size] = path
	return path
}

var benchRecords = map[int]string{}

// writeRecord writes perObject revisions of each of objects Deployments,
// a revision of each in turn: created, then scaled, its image changed, its
// status written, one at a time.
func writeRecord(path string, objects int) error {
	ctx := context.Background()
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	const res = "deployments.v1.apps"
	if _, err := s.Begin(ctx, res, 1); err != nil {
		return err
	}
	last := make([][]byte, objects)
	rv := uint64(1)
	batch := history.Batch{}
	t := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	for step := range perObject {
		for i := range objects {
			rv++
			op, manager := history.Modified, []string{"kubectl", "kubectl-edit", "kube-controller-manager"}[step%3]
			if step == 0 {
				op, manager = history.Added, "kubectl-client-side-apply"
			}
			doc := benchDeployment(i, rv, step, t)
			batch.Revisions = append(batch.Revisions, history.Revision{Namespace: "default", Name: benchName(i), RV: rv, Time: t, Op: op, Manager: manager, Object: doc, Before: last[i]})
			last[i] = doc
			if len(batch.Revisions) == 2000 {
				batch.RV = rv
				if err := s.Write(ctx, res, batch); err != nil {
					return err
				}
				batch = history.Batch{}
			}
		}
		t = t.Add(time.Minute)
	}
	if len(batch.Revisions) > 0 {
		batch.RV = rv
		if err := s.Write(ctx, res, batch); err != nil {
			return err
		}
	}
	return s.Checkpoint(ctx, res)
}

// benchDeployment is Deployment i at step: replicas, image and status
// each changed every third step.
func benchDeployment(i int, rv uint64, step int, t time.Time) []byte {
	scaled, edited, status := (step+2)/3, (step+1)/3, step/3
	return fmt.Appendf(nil, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":"default","uid":"uid-%d","resourceVersion":"%d","generation":%d,"labels":{"app":%q,"tier":"web"},"managedFields":[`+
		`{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"apps/v1","time":"2026-12-06T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:selector":{},"f:template":{}}}},`+
		`{"manager":"kubectl","operation":"Update","apiVersion":"apps/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"},`+
		`{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:replicas":{},"f:conditions":{}}},"subresource":"status"}]},`+
		`"spec":{"replicas":%d,"selector":{"matchLabels":{"app":%q}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%%","maxUnavailable":"25%%"}},`+
		`"template":{"metadata":{"labels":{"app":%q}},"spec":{"containers":[{"name":"web","image":"registry.example.com/web:%d","ports":[{"containerPort":8080,"protocol":"TCP"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}},"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler"}}},`+
		`"status":{"observedGeneration":%d,"replicas":%d,"updatedReplicas":%d,"readyReplicas":%d,"conditions":[{"type":"Available","status":"True","lastUpdateTime":%q,"reason":"MinimumReplicasAvailable","message":"step %d"}]}}`,
		benchName(i), i, rv, 1+edited+scaled, benchName(i),
		t.Add(time.Duration(scaled)*time.Second).Format(time.RFC3339), t.Format(time.RFC3339),
		1+scaled%5, benchName(i), benchName(i), edited, 1+edited+scaled, 1+scaled%5, 1+scaled%5, 1+scaled%5, t.Format(time.RFC3339), status)
}
