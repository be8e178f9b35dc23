package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// TestWatchEveryEventInOrder: `watch --watch-only -o json` and kubectl's
// `get -w --watch-only --output-watch-events -o json`, side by side on one
// namespace, print the same events during bursts of parallel patches: as
// many, with the same (type, name, resourceVersion) sequence,
// resourceVersions increasing. A coalescing printer loses some and reorders
// others.
func TestWatchEveryEventInOrder(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	cfg := cp.AdminConfig()
	cfg.QPS = -1 // no client-side rate limit: the burst is the point
	fast, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const hot, spread, writers = "hot", 10, 8
	createCM(t, cs, ns, hot, nil)
	for i := range spread {
		createCM(t, cs, ns, fmt.Sprintf("c%02d", i), nil)
	}

	t.Cleanup(func() {
		if t.Failed() { // a watch the server ended for not reading fast enough?
			logWatchClosures(t, filepath.Join(cp.LogDir(), "kube-apiserver.log"))
		}
	})
	kc := cp.AdminKubeconfig()
	streams := []*eventStream{
		startEventStream(t, "kubectl", kubectlBinary, "get", "configmaps", "-n", ns, "-w", "--watch-only",
			"--output-watch-events", "-o", "json", "--kubeconfig", kc),
		startEventStream(t, "kubectl-reflect", binary, "watch", "configmaps", "-n", ns, "--watch-only",
			"-o", "json", "--kubeconfig", kc),
	}
	waitWatching(t, cs, ns, streams)
	createCM(t, cs, ns, "begin", nil)

	// 300 patches to one ConfigMap, then 2,000 over ten, each from 8
	// writers at once; every patch changes the object.
	patched := burst(t, fast, ns, writers, 300, func(int) string { return hot })
	patched += burst(t, fast, ns, writers, 2000, func(i int) string { return fmt.Sprintf("c%02d", i%spread) })
	for i := range spread { // and deletions, in order too
		deleteCM(t, cs, ns, fmt.Sprintf("c%02d", i))
	}
	createCM(t, cs, ns, "end", nil)

	var got [][]watchEvent
	for _, s := range streams {
		evs := s.between("begin", "end")
		got = append(got, evs)
		if len(evs) != patched+spread {
			t.Errorf("%s printed %d events between the markers; %d patches and %d deletions were made",
				s.name, len(evs), patched, spread)
		}
		for i := 1; i < len(evs); i++ {
			if evs[i].rv <= evs[i-1].rv {
				t.Errorf("%s: resourceVersion goes from %v to %v at event %d", s.name, evs[i-1], evs[i], i)
				break
			}
		}
	}
	if !slices.Equal(got[0], got[1]) {
		for i := range min(len(got[0]), len(got[1])) {
			if got[0][i] != got[1][i] {
				t.Fatalf("event %d: kubectl printed %v, we printed %v", i, got[0][i], got[1][i])
			}
		}
		t.Fatalf("kubectl printed %d events, we printed %d", len(got[0]), len(got[1]))
	}
}

// logWatchClosures logs the lines of the apiserver's log that tell of a
// watch it closed.
func logWatchClosures(t *testing.T, path string) {
	log, err := os.ReadFile(path)
	if err != nil {
		t.Log(err)
		return
	}
	for _, l := range strings.Split(string(log), "\n") {
		if strings.Contains(l, "Forcing") || strings.Contains(l, "unresponsive") || strings.Contains(l, "watch chan") {
			t.Log(l)
		}
	}
}

// burst makes n merge patches from writers goroutines at once, patch i to
// the ConfigMap target(i), each with a value of its own, and returns n.
func burst(t *testing.T, cs kubernetes.Interface, ns string, writers, n int, target func(i int) string) int {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				patch := fmt.Appendf(nil, `{"data":{"n":"%d-%d"}}`, w, i)
				_, err := cs.CoreV1().ConfigMaps(ns).Patch(context.Background(), target(i), types.MergePatchType, patch, metav1.PatchOptions{})
				if err != nil {
					errs <- fmt.Errorf("patch %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return n
}

// waitWatching makes each stream (started with --watch-only) print an
// event, creating ConfigMaps ready-0, ready-1, ... every half second until
// it does: then it watches. The events it printed, and those the others
// print meanwhile, come before the test's own and are skipped by between.
func waitWatching(t *testing.T, cs kubernetes.Interface, ns string, streams []*eventStream) {
	t.Helper()
	deadline := time.After(patience)
	n := 0
	for _, s := range streams {
	wait:
		for {
			createCM(t, cs, ns, fmt.Sprintf("ready-%d", n), nil)
			n++
			select {
			case _, ok := <-s.events:
				if !ok {
					t.Fatalf("%s ended before it printed anything; stderr:\n%s", s.name, s.stderr.String())
				}
				break wait
			case <-time.After(500 * time.Millisecond):
			case <-deadline:
				t.Fatalf("%s printed nothing within %s; stderr:\n%s", s.name, patience, s.stderr.String())
			}
		}
	}
}

// watchEvent is one printed watch event: its type as ours prints it
// (kubectl's ADDED and MODIFIED are APPLIED), the object's name and
// resourceVersion.
type watchEvent struct {
	typ  string
	name string
	rv   uint64
}

func (e watchEvent) String() string { return fmt.Sprintf("%s %s@%d", e.typ, e.name, e.rv) }

// eventStream is a running watch printing JSON events, decoded as they
// come.
type eventStream struct {
	t      *testing.T
	name   string
	events chan watchEvent // closed when the output ends
	stderr *syncBuffer
	read   int   // events read so far
	exit   error // how the program ended, once events is closed
}

func startEventStream(t *testing.T, name, program string, args ...string) *eventStream {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &eventStream{t: t, name: name, events: make(chan watchEvent, 100_000), stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.events)
		defer func() { s.exit = cmd.Wait() }() // after every read, before the close
		dec := json.NewDecoder(out)
		for {
			var e struct {
				Type   string `json:"type"`
				Object struct {
					Metadata struct {
						Name            string `json:"name"`
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
				} `json:"object"`
			}
			if err := dec.Decode(&e); err != nil {
				if err != io.EOF {
					fmt.Fprintf(s.stderr, "test: decoding the output: %v\n", err)
				}
				return
			}
			typ := e.Type
			if typ == "ADDED" || typ == "MODIFIED" {
				typ = "APPLIED"
			}
			rv, err := strconv.ParseUint(e.Object.Metadata.ResourceVersion, 10, 64)
			if err != nil {
				fmt.Fprintf(s.stderr, "test: resourceVersion %q: %v\n", e.Object.Metadata.ResourceVersion, err)
			}
			s.events <- watchEvent{typ: typ, name: e.Object.Metadata.Name, rv: rv}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", name, s.stderr.String())
		}
	})
	return s
}

// next returns the next event, failing the test if none comes.
func (s *eventStream) next() watchEvent {
	s.t.Helper()
	select {
	case e, ok := <-s.events:
		if !ok {
			s.t.Fatalf("%s ended (%v) after %d events; stderr:\n%s", s.name, s.exit, s.read, s.stderr.String())
		}
		s.read++
		return e
	case <-time.After(patience):
		s.t.Fatalf("%s printed nothing within %s; stderr:\n%s", s.name, patience, s.stderr.String())
	}
	return watchEvent{}
}

// between skips the events up to the creation of the ConfigMap first and
// returns those up to the creation of last, both excluded.
func (s *eventStream) between(first, last string) []watchEvent {
	s.t.Helper()
	for e := s.next(); e.typ != "APPLIED" || e.name != first; e = s.next() {
	}
	var evs []watchEvent
	for e := s.next(); e.typ != "APPLIED" || e.name != last; e = s.next() {
		evs = append(evs, e)
	}
	return evs
}
