package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// storeSource is a Source over a store the test writes to.
type storeSource struct {
	*store.Store[*object.Object]
	res kube.Resource
}

func (s storeSource) Resource() kube.Resource  { return s.res }
func (s storeSource) Columns() []object.Column { return nil }

func newSource(resource string) storeSource {
	return storeSource{
		Store: store.New(store.Options[*object.Object]{}),
		res:   kube.Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: resource}, Namespaced: true},
	}
}

// obj is a ConfigMap "name@rv" with a value.
func obj(t *testing.T, spec, value string) *object.Object {
	name, rv, _ := strings.Cut(spec, "@")
	o, err := object.Decode(fmt.Appendf(nil, `{"metadata":{"namespace":"default","name":%q,"resourceVersion":%q},"data":{"v":%q}}`, name, rv, value), object.Prune{})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// recorderRun runs a Recorder on src until stop, telling written of each
// batch's resourceVersion.
type recorderRun struct {
	cancel  context.CancelFunc
	done    chan struct{}
	written chan uint64
}

func startRecorder(s Record, src Source, opts RecorderOptions) *recorderRun {
	ctx, cancel := context.WithCancel(context.Background())
	run := &recorderRun{cancel: cancel, done: make(chan struct{}), written: make(chan uint64, 100)}
	opts.OnWrite = func(_ string, rv uint64, _ int) { run.written <- rv }
	go func() {
		defer close(run.done)
		NewRecorder(s, opts).Record(ctx, src)
	}()
	return run
}

// waitFor waits for a batch written up to rv.
func (r *recorderRun) waitFor(t *testing.T, rv uint64) {
	t.Helper()
	for got := range r.written {
		if got >= rv {
			return
		}
	}
}

func (r *recorderRun) stop() { r.cancel(); <-r.done }

func apply(t *testing.T, src storeSource, evs ...watch.Event[*object.Object]) {
	t.Helper()
	for _, ev := range evs {
		if err := src.Apply(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

func list(t *testing.T, rv string, objs ...*object.Object) []watch.Event[*object.Object] {
	evs := []watch.Event[*object.Object]{{Type: watch.Init}}
	for _, o := range objs {
		evs = append(evs, watch.Event[*object.Object]{Type: watch.InitApply, Object: o})
	}
	return append(evs, watch.Event[*object.Object]{Type: watch.InitDone, ResourceVersion: rv})
}

func live(typ watch.EventType, o *object.Object) watch.Event[*object.Object] {
	return watch.Event[*object.Object]{Type: typ, Object: o, ResourceVersion: o.ResourceVersion}
}

func history(t *testing.T, s Record, name string) string {
	t.Helper()
	revs, err := s.Revisions(context.Background(), "configmaps.v1.", "default", name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range revs {
		out = append(out, fmt.Sprintf("%v@%d", r.Op, r.RV))
	}
	return strings.Join(out, " ")
}

func TestRecorderAcrossRestarts(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		src := newSource("configmaps")
		apply(t, src, list(t, "10", obj(t, "a@5", "1"), obj(t, "b@6", "1"))...)
		run := startRecorder(s, src, RecorderOptions{})
		run.waitFor(t, 10)
		apply(t, src, live(watch.Apply, obj(t, "a@11", "2")), live(watch.Delete, obj(t, "b@12", "1")), live(watch.Apply, obj(t, "c@13", "1")))
		run.waitFor(t, 13)
		run.stop()

		// A new daemon: its list at 30 finds a gone, c changed, d new.
		src = newSource("configmaps")
		apply(t, src, list(t, "30", obj(t, "c@20", "2"), obj(t, "d@21", "1"))...)
		run = startRecorder(s, src, RecorderOptions{})
		run.waitFor(t, 30)
		run.stop()

		for name, want := range map[string]string{
			"a": "INITIAL@5 MODIFIED@11 DELETED@30",
			"b": "INITIAL@6 DELETED@12",
			"c": "ADDED@13 MODIFIED@20",
			"d": "INITIAL@21", // created while nothing recorded: not seen
		} {
			if got := history(t, s, name); got != want {
				t.Errorf("history of %s: %s, want %s", name, got, want)
			}
		}
		if _, err := s.StateAt(context.Background(), "configmaps.v1.", 25); err == nil || !strings.Contains(err.Error(), "gap from resourceVersion 13 to 30") {
			t.Errorf("StateAt(25): %v", err)
		}
		revs, _ := s.Revisions(context.Background(), "configmaps.v1.", "default", "a")
		if got := string(revs[2].Object); !strings.Contains(got, `"resourceVersion":"11"`) {
			t.Errorf("a deletion found by a list holds %s, want the last state recorded", got)
		}
	})
}

// TestRecorderRelist: a relist while recording (a watch resumed from a
// resourceVersion the server no longer holds) records what it found, the
// deletions at the relist's resourceVersion, and the stretch it covers as
// a gap; the record is complete to the relist's resourceVersion only once
// a live change follows it.
func TestRecorderRelist(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		src := newSource("configmaps")
		apply(t, src, list(t, "10", obj(t, "a@5", "1"), obj(t, "b@6", "1"), obj(t, "c@7", "1"))...)
		run := startRecorder(s, src, RecorderOptions{})
		run.waitFor(t, 10)
		apply(t, src, live(watch.Apply, obj(t, "b@11", "2")))
		run.waitFor(t, 11)

		apply(t, src, list(t, "30", obj(t, "a@5", "1"), obj(t, "c@20", "2"), obj(t, "d@21", "1"))...)
		apply(t, src, live(watch.Apply, obj(t, "d@31", "2")))
		run.waitFor(t, 31)
		run.stop()

		for name, want := range map[string]string{
			"a": "INITIAL@5",
			"b": "INITIAL@6 MODIFIED@11 DELETED@30",
			"c": "INITIAL@7 MODIFIED@20",
			"d": "INITIAL@21 MODIFIED@31", // found by the relist: its creation not seen
		} {
			if got := history(t, s, name); got != want {
				t.Errorf("history of %s: %s, want %s", name, got, want)
			}
		}
		if _, err := s.StateAt(context.Background(), "configmaps.v1.", 25); err == nil || !strings.Contains(err.Error(), "gap from resourceVersion 11 to 30") {
			t.Errorf("StateAt(25): %v, want the relist's gap", err)
		}
		if latest, err := s.Latest(context.Background(), "configmaps.v1."); err != nil || latest != 31 {
			t.Errorf("Latest: %d, %v; want 31", latest, err)
		}
	})
}

// TestRecorderInitial: an object there when recording begins is INITIAL
// and claims no manager (its managedFields say who wrote it last, not who
// created it); one created while recording is ADDED by its creator; a
// change is its writer's.
func TestRecorderInitial(t *testing.T) {
	s, _ := openTemp(t)
	src := newSource("configmaps")
	managed := func(spec, manager, at string) *object.Object {
		name, rv, _ := strings.Cut(spec, "@")
		o, err := object.Decode(fmt.Appendf(nil, `{"metadata":{"namespace":"default","name":%q,"resourceVersion":%q,"managedFields":[`+
			`{"manager":"creator","operation":"Update","time":"2026-12-04T07:00:00Z","fieldsV1":{"f:data":{"f:v":{}}}},`+
			`{"manager":%q,"operation":"Update","time":%q,"fieldsV1":{"f:data":{"f:w":{}}}}]},"data":{"v":"1","w":%[1]q}}`, name, rv, manager, at), object.Prune{})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	apply(t, src, list(t, "10", managed("a@5", "controller", "2026-12-04T07:00:01Z"))...)
	run := startRecorder(s, src, RecorderOptions{})
	run.waitFor(t, 10)
	apply(t, src, live(watch.Apply, managed("a@11", "tuner", "2026-12-04T07:00:02Z")), live(watch.Apply, managed("b@12", "creator", "2026-12-04T07:00:02Z")))
	run.waitFor(t, 12)
	run.stop()
	for name, want := range map[string]string{"a": "INITIAL@5 by  MODIFIED@11 by tuner", "b": "ADDED@12 by creator"} {
		revs, err := s.Revisions(context.Background(), "configmaps.v1.", "default", name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range revs {
			got = append(got, fmt.Sprintf("%v@%d by %s", r.Op, r.RV, r.Manager))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("history of %s: %q, want %q", name, strings.Join(got, " "), want)
		}
	}
}

// TestRecorderManagerOfASecret: who changed a Secret is read from its
// values as they are, before they are hashed: a change in the second of
// its writer's write before (no entry changed) is the writer's, not the
// other manager's whose value only looks changed next to a hashed one.
func TestRecorderManagerOfASecret(t *testing.T) {
	s, _ := openTemp(t)
	src := newSource("secrets")
	secret := func(rv, a string) *object.Object {
		o, err := object.Decode(fmt.Appendf(nil, `{"metadata":{"namespace":"default","name":"db","resourceVersion":%q,"managedFields":[`+
			`{"manager":"writer","operation":"Update","time":"2026-12-04T07:00:01Z","fieldsV1":{"f:data":{"f:a":{}}}},`+
			`{"manager":"other","operation":"Update","time":"2026-12-04T07:00:02Z","fieldsV1":{"f:data":{"f:b":{}}}}]},`+
			`"data":{"a":%q,"b":"Yg=="}}`, rv, a), object.Prune{})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	apply(t, src, list(t, "3", secret("3", "YQ=="))...)
	run := startRecorder(s, src, RecorderOptions{})
	run.waitFor(t, 3)
	apply(t, src, live(watch.Apply, secret("4", "YWE=")))
	run.waitFor(t, 4)
	run.stop()
	revs, err := s.Revisions(context.Background(), "secrets.v1.", "default", "db")
	if err != nil || len(revs) != 2 {
		t.Fatalf("revisions: %v, %v", revs, err)
	}
	if revs[1].Manager != "writer" {
		t.Errorf("the change of a is %q's, want writer's", revs[1].Manager)
	}
}

func TestRecorderHashesSecrets(t *testing.T) {
	s, _ := openTemp(t)
	src := newSource("secrets")
	secret, _ := object.Decode([]byte(`{"metadata":{"namespace":"default","name":"db","resourceVersion":"3"},"data":{"password":"aHVudGVyMg=="}}`), object.Prune{})
	apply(t, src, list(t, "3", secret)...)
	for _, full := range []bool{false, true} {
		s, _ := openTemp(t)
		run := startRecorder(s, src, RecorderOptions{SecretData: full})
		run.waitFor(t, 3)
		run.stop()
		revs, err := s.Revisions(context.Background(), "secrets.v1.", "default", "db")
		if err != nil || len(revs) != 1 {
			t.Fatalf("revisions: %v, %v", revs, err)
		}
		hashed := strings.Contains(string(revs[0].Object), `"password":"sha256:`)
		if hashed == full || strings.Contains(string(revs[0].Object), "aHVudGVyMg") != full {
			t.Errorf("SecretData %v: recorded %s", full, revs[0].Object)
		}
	}
	_ = s
}

func TestRecorderConcurrentResources(t *testing.T) {
	onEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		var wg sync.WaitGroup
		for i := range 4 {
			src := newSource(fmt.Sprintf("things%d", i))
			apply(t, src, list(t, "1")...)
			run := startRecorder(s, src, RecorderOptions{})
			run.waitFor(t, 1)
			wg.Go(func() {
				for rv := 2; rv < 200; rv++ {
					apply(t, src, live(watch.Apply, obj(t, fmt.Sprintf("o%d@%d", rv%7, rv), "x")))
				}
				run.waitFor(t, 199)
				run.stop()
			})
		}
		wg.Wait()
		for i := range 4 {
			got, err := s.StateAt(context.Background(), fmt.Sprintf("things%d.v1.", i), 199)
			if err != nil || len(got) != 7 {
				t.Errorf("things%d at 199: %d objects, %v", i, len(got), err)
			}
		}
	})
}

// TestRecorderFullDisk fills the database (SQLite's max_page_count: its
// "database or disk is full"), then makes room: the recorder says the
// error once per cause, retries, says when it writes again, and loses no
// change.
func TestRecorderFullDisk(t *testing.T) {
	s, _ := openTemp(t)
	s.db.SetMaxOpenConns(1) // the pragma is one connection's
	src := newSource("configmaps")
	apply(t, src, list(t, "1")...)
	var mu sync.Mutex
	var told []string
	errs := make(chan error, 100)
	run := startRecorder(s, src, RecorderOptions{OnError: func(_ string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			told = append(told, "again")
		} else {
			told = append(told, "full")
		}
		errs <- err
	}})
	defer run.stop()
	run.waitFor(t, 1)
	var pages int
	s.db.QueryRow(`PRAGMA page_count`).Scan(&pages)
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	big := string(randomText(rand.New(rand.NewPCG(3, 4)), 64<<10)) // incompressible: pages it needs
	apply(t, src, live(watch.Apply, obj(t, "big@2", big)))
	if err := <-errs; err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("first error: %v", err)
	}
	if _, err := s.db.Exec(`PRAGMA max_page_count = 1000000`); err != nil {
		t.Fatal(err)
	}
	for err := range errs {
		if err == nil {
			break
		}
	}
	run.waitFor(t, 2)
	if got := history(t, s, "big"); got != "ADDED@2" {
		t.Errorf("history of big: %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if told[0] != "full" || told[len(told)-1] != "again" {
		t.Errorf("told: %v", told)
	}
}
