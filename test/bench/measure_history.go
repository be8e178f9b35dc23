//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
)

// historyEdits is how many times the size measurement edits one
// ConfigMap (the case).
const historyEdits = 1000

// historyResult is the history part: a daemon with and without --record
// under the same updates, get --at over every ConfigMap, and the bytes on
// disk per revision of one ConfigMap edited historyEdits times.
type historyResult struct {
	objects int
	events  int // updates of each CPU round
	// ms CPU per event, serve cm and serve cm --record, from before the
	// updates to the exit after SIGTERM (a recording daemon's checkpoint);
	// *UpdatesCPU to the last update applied (recorded), before the stop;
	// *Stop the s of CPU of the stop alone
	plainCPU, recordCPU               []float64
	plainUpdatesCPU, recordUpdatesCPU []float64
	plainStop, recordStop             []float64
	at, live                          []getSample // get cm -A --at RV; get cm -A through the daemon
	// bytes per revision: the pages in use (free pages aside) and the
	// files' growth (sizePerRevision)
	perRevision, perRevisionFile float64
	// s from start to the API server's state (warmChanges made while no
	// daemon ran), and to the line that says it serves: serve cm --record
	// on the history; serve cm
	warm, cold               []float64
	warmServing, coldServing []float64
	firstCPU                 float64 // s CPU of the first recording daemon, start to all recorded
	// blame cm/NAME, and with --field, of the ConfigMap edited historyEdits times
	blame, blameField []getSample
	blameRecords      []blameRecordResult // blame of one Deployment in records of two sizes (measure_blame.go)
	timeline          timelineResult      // timeline of issue 49's record (measure_timeline.go)
}

// historyEnv is the part's environment: a runtime and a state directory of
// its own (the daemon's files, its history).
type historyEnv struct {
	*env
	state string
}

func measureHistory(ctx context.Context, e *env) (historyResult, error) {
	r := historyResult{objects: e.cfg.objects, events: e.cfg.events}
	se, cleanup, err := serveEnv(e)
	if err != nil {
		return r, err
	}
	defer cleanup()
	state, err := os.MkdirTemp("", "kubectl-reflect-bench-state-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(state)
	se.procs = newProcs(append(append([]string{}, se.procs.env...), "XDG_STATE_HOME="+state))
	he := &historyEnv{env: se, state: state}
	if r.firstCPU, err = he.firstRecording(ctx); err != nil {
		return r, fmt.Errorf("first recording: %w", err)
	}
	for round := range e.cfg.repeat {
		for _, record := range firstInRound(round, []bool{false, true}) {
			if err := he.cpuRound(ctx, &r, round, record); err != nil {
				return r, err
			}
		}
	}
	// The restarts follow the recording rounds at once: the API server
	// resumes a watch only from a resourceVersion its watch cache still
	// holds, and after a minute or more without writes that cache gives
	// its old events up when writes resume (its window is 75 s). The bytes
	// per revision, blame and timeline rows take longer than that: a first
	// restart after them relisted (quick run of 2026-12-07).
	for round := range e.cfg.repeat {
		if err := he.warmRound(ctx, &r, round); err != nil {
			return r, fmt.Errorf("warm restart: %w", err)
		}
	}
	if r.perRevision, r.perRevisionFile, err = he.sizePerRevision(ctx); err != nil {
		return r, fmt.Errorf("bytes per revision: %w", err)
	}
	if err := he.timeBlames(ctx, &r); err != nil {
		return r, fmt.Errorf("blame: %w", err)
	}
	if r.blameRecords, err = he.timeBlameRecords(ctx); err != nil {
		return r, fmt.Errorf("blame: %w", err)
	}
	if err := he.timeTimelines(ctx, &r.timeline); err != nil {
		return r, fmt.Errorf("timeline: %w", err)
	}
	return r, nil
}

// firstRecording runs the history's first recording daemon until it has
// recorded every ConfigMap, and returns its CPU: the recording rounds
// then measure a daemon that records changes, as one does after its
// first start, not one that records a whole state and writes its first
// checkpoint (which the median would not count either, but which left it
// the slower of the other two rounds).
func (he *historyEnv) firstRecording(ctx context.Context) (float64, error) {
	d, err := he.startReached(ctx, true, "history-first")
	if err != nil {
		return 0, err
	}
	defer he.stopDaemon(d) // which writes a checkpoint
	cpu, err := readCPU(d.c.pid())
	if err != nil {
		return 0, err
	}
	he.logf("history: the first recording daemon recorded %d ConfigMaps in %.1f s of CPU", he.cfg.objects, cpu.Seconds())
	return cpu.Seconds(), nil
}

// cpuRound starts a daemon (recording or not), makes cfg.events updates,
// waits until it has them (recorded, when recording) and reads its CPU;
// the first recording round then times get --at against get. It then
// stops the daemon and adds the CPU of its stop, which for a recording
// daemon is the checkpoint of the whole state it writes on SIGTERM: the
// checkpoint a daemon writes every ten minutes (with the prune), here
// once per round's updates.
func (he *historyEnv) cpuRound(ctx context.Context, r *historyResult, round int, record bool) error {
	d, err := he.startReached(ctx, record, fmt.Sprintf("history-%d-%v-start", round, record))
	if err != nil {
		return err
	}
	defer he.stopDaemon(d)
	cpu0, err := readCPU(d.c.pid())
	if err != nil {
		return err
	}
	n := he.cfg.objects - 1
	err = parallel(ctx, he.cfg.workers, he.cfg.events, func(ctx context.Context, k int) error {
		return he.clients.touch(ctx, he.namespace, 1+k%n, fmt.Sprintf("history-%d-%v-%d", round, record, k))
	})
	if err != nil {
		return err
	}
	sentinel, err := he.touchSentinel(ctx, fmt.Sprintf("history-%d-%v-end", round, record))
	if err != nil {
		return err
	}
	if err := he.reached(ctx, d, sentinel, record); err != nil {
		return err
	}
	cpu1, err := readCPU(d.c.pid())
	if err != nil {
		return err
	}
	if record && round == 0 {
		if err := he.timeGets(ctx, r, sentinel); err != nil { // through the daemon: its CPU is not counted
			return err
		}
	}
	before, err := readCPU(d.c.pid())
	if err != nil {
		return err
	}
	he.stopDaemon(d)
	stop := d.c.cpuTime() - before
	updates, total := perEvent(cpu1-cpu0, he.cfg.events+1), perEvent(cpu1-cpu0+stop, he.cfg.events+1)
	if record {
		r.recordCPU, r.recordUpdatesCPU, r.recordStop = append(r.recordCPU, total), append(r.recordUpdatesCPU, updates), append(r.recordStop, stop.Seconds())
	} else {
		r.plainCPU, r.plainUpdatesCPU, r.plainStop = append(r.plainCPU, total), append(r.plainUpdatesCPU, updates), append(r.plainStop, stop.Seconds())
	}
	he.logf("history round %d/%d, record %v: %.3f ms CPU per event, its stop included (%.3f without; the stop %s)",
		round+1, he.cfg.repeat, record, total, updates, stop.Round(time.Millisecond))
	return nil
}

// startReached starts a daemon (recording or not), writes value to the
// sentinel and waits until the daemon has it (reached); the caller stops
// the daemon.
func (he *historyEnv) startReached(ctx context.Context, record bool, value string) (*daemon, error) {
	var extra []string
	if record {
		extra = []string{"--record"}
	}
	d, err := startDaemon(ctx, he.env, extra...)
	if err != nil {
		return nil, err
	}
	sentinel, err := he.touchSentinel(ctx, value)
	if err == nil {
		err = he.reached(ctx, d, sentinel, record)
	}
	if err != nil {
		he.stopDaemon(d)
		return nil, err
	}
	return d, nil
}

// timeGets times get cm -A --at the sentinel's resourceVersion (the
// history alone) and get cm -A through the daemon, taking turns.
func (he *historyEnv) timeGets(ctx context.Context, r *historyResult, rv string) error {
	at := []string{"get", "cm", "-A", "--at", rv, "--kubeconfig", he.kubeconfig}
	live := []string{"get", "cm", "-A", "--kubeconfig", he.kubeconfig}
	for i := -1; i < he.cfg.repeat; i++ { // -1 warms up
		for _, args := range firstInRound(max(i, 0), [][]string{at, live}) {
			s, err := timeToExit(ctx, he.env, he.tools.reflect, args)
			if err == nil && s.lines < he.cfg.objects+1 {
				err = fmt.Errorf("printed %d lines, want a header and at least %d rows", s.lines, he.cfg.objects)
			}
			if err != nil {
				return fmt.Errorf("%v: %w", args, err)
			}
			if i < 0 {
				continue
			}
			if args[3] == "--at" {
				r.at = append(r.at, s)
			} else {
				r.live = append(r.live, s)
			}
		}
	}
	return nil
}

// touchSentinel writes a new value to the sentinel ConfigMap (object 0)
// and returns the write's resourceVersion.
func (he *historyEnv) touchSentinel(ctx context.Context, value string) (string, error) {
	return he.patch(ctx, objectName(0), map[string]string{"rev": value})
}

func (he *historyEnv) patch(ctx context.Context, name string, data map[string]string) (string, error) {
	p, err := json.Marshal(map[string]any{"data": data})
	if err != nil {
		return "", err
	}
	cm, err := he.clients.cs.CoreV1().ConfigMaps(he.namespace).Patch(ctx, name, types.MergePatchType, p, metav1.PatchOptions{})
	if err != nil {
		return "", fmt.Errorf("update ConfigMap %s: %w", name, err)
	}
	return cm.ResourceVersion, nil
}

// reached waits until the daemon has resourceVersion rv: in its history
// when it records (the recording's CPU counts), else in its store.
func (he *historyEnv) reached(ctx context.Context, d *daemon, rv string, record bool) error {
	want, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return err
	}
	cs, err := daemonClients(d)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(he.cfg.wait)
	for {
		ok, err := he.has(ctx, cs, want, record)
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon did not reach resourceVersion %s in %s", rv, he.cfg.wait)
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

func (he *historyEnv) has(ctx context.Context, cs kubernetes.Interface, want uint64, record bool) (bool, error) {
	if !record {
		_, err := cs.CoreV1().ConfigMaps(he.namespace).List(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(want, 10), Limit: 1})
		return err == nil, nil
	}
	return historyReaches(ctx, he.state, want), nil
}

// historyFile is the daemon's history, in the part's state directory.
func (he *historyEnv) historyFile() (string, error) { return historyFileIn(he.state) }

// historyFileIn is the history a daemon whose state directory is state
// writes.
func historyFileIn(state string) (string, error) {
	matches, _ := filepath.Glob(filepath.Join(state, "kubectl-reflect", "history", "*.db"))
	if len(matches) != 1 {
		return "", fmt.Errorf("history files: %v", matches)
	}
	return matches[0], nil
}

// historyReaches says whether the history in state ends at or after
// resourceVersion rv; false while it is not written yet.
func historyReaches(ctx context.Context, state string, rv uint64) bool {
	path, err := historyFileIn(state)
	if err != nil {
		return false
	}
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
	if err != nil {
		return false
	}
	defer s.Close()
	at, err := s.ResourceVersionAt(ctx, time.Now().Add(time.Hour))
	return err == nil && at >= rv
}

// stopDaemon stops d with SIGTERM (the history is closed, its WAL
// written back) and waits.
func (he *historyEnv) stopDaemon(d *daemon) {
	if err := d.c.signal(syscall.SIGTERM); err == nil {
		_ = d.c.wait(context.Background(), 30*time.Second)
	}
	d.c.kill()
}

// sizePerRevision records one ConfigMap edited historyEdits times in a few
// letters each and returns, per edit, the growth of the history's pages in
// use (its free pages aside: what the record holds) and of its files
// (database, WAL and shared memory, free pages included: what the disk
// gives it, page by page) while a recording daemon records them: both read
// with the daemon running, once it serves and once it recorded the last
// edit. The daemon's stop, which writes a checkpoint of the whole kind in
// place of the last one (as a running daemon does every ten minutes), is
// not counted: between two stopped daemons it moved the figure by hundreds
// of bytes per edit from run to run.
func (he *historyEnv) sizePerRevision(ctx context.Context) (inUse, file float64, err error) {
	path, err := he.historyFile()
	if err != nil {
		return 0, 0, err
	}
	d, err := startDaemon(ctx, he.env, "--record")
	if err != nil {
		return 0, 0, err
	}
	defer he.stopDaemon(d)
	usedBefore, fileBefore, err := historySizes(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	text := []byte(payload(1, he.cfg.size))
	var rv string
	for i := range historyEdits {
		for k := range 4 {
			text[(i*31+k*257)%len(text)] = byte('a' + (i+k)%26)
		}
		if rv, err = he.patch(ctx, objectName(1), map[string]string{"payload": string(text)}); err != nil {
			return 0, 0, err
		}
	}
	if err := he.reached(ctx, d, rv, true); err != nil {
		return 0, 0, err
	}
	usedAfter, fileAfter, err := historySizes(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	he.logf("history: %d edits of one ConfigMap: %d -> %d bytes in use, %d -> %d bytes on disk", historyEdits, usedBefore, usedAfter, fileBefore, fileAfter)
	return float64(usedAfter-usedBefore) / historyEdits, float64(fileAfter-fileBefore) / historyEdits, nil
}

// historySizes is what the history at path holds in its pages in use (as
// a reader sees it: its WAL's committed pages included), and the size of
// its files.
func historySizes(ctx context.Context, path string) (used, files int64, err error) {
	if files, err = filesSize(path); err != nil {
		return 0, 0, err
	}
	s, err := history.OpenSQLite(ctx, path, history.OpenOptions{ReadOnly: true})
	if err != nil {
		return 0, 0, err
	}
	defer s.Close()
	used, _, err = s.Size(ctx)
	return used, files, err
}

// filesSize is the size of an SQLite database with its WAL and shared
// memory files.
func filesSize(path string) (int64, error) {
	var n int64
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += fi.Size()
	}
	return n, nil
}

// daemonClients is a clientset of the daemon's kubeconfig.
func daemonClients(d *daemon) (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", d.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading the daemon's kubeconfig: %w", err)
	}
	return kubernetes.NewForConfig(cfg)
}
