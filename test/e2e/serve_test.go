package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// daemon is a running `kubectl reflect serve`.
type daemon struct {
	*proc
	kubeconfig string
	config     *rest.Config
	dir        string // its XDG_RUNTIME_DIR
}

// startServe runs `serve args...` with the admin kubeconfig and a runtime
// directory of the test's, and waits until it serves.
func startServe(t *testing.T, cp *controlplane.ControlPlane, args ...string) *daemon {
	t.Helper()
	return startServeIn(t, t.TempDir(), cp.AdminKubeconfig(), args...)
}

// startServeIn runs `serve args...` with kubeconfig and the runtime
// directory dir, and waits until it serves.
func startServeIn(t *testing.T, dir, kubeconfig string, args ...string) *daemon {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{"serve"}, args...), "--kubeconfig", kubeconfig)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_RUNTIME_DIR="+dir)
	p := startCmd(t, cmd)
	p.WaitStderr(".kubeconfig\n")
	_, after, _ := strings.Cut(p.Stderr.String(), "kubeconfig: ")
	path, _, _ := strings.Cut(after, "\n")
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("reading the daemon's kubeconfig %s: %v", path, err)
	}
	return &daemon{proc: p, kubeconfig: path, config: cfg, dir: dir}
}

// caughtUp waits until the daemon's configmaps are as recent as the API
// server's now, and returns the resourceVersion it reached. It writes a config map of its own (default/e2e-caught-up)
// and waits for a LIST at that write's resourceVersion (NotOlderThan) to be
// answered: a resourceVersion of the server's alone may never be reached,
// since the daemon's configmaps advance only with their own events and
// bookmarks, not with writes of other kinds.
func (d *daemon) caughtUp(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	cm := corev1ac.ConfigMap("e2e-caught-up", "default").WithData(map[string]string{"at": strconv.FormatInt(time.Now().UnixNano(), 10)})
	written, err := cs.CoreV1().ConfigMaps("default").Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "e2e", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	dcs := kubernetes.NewForConfigOrDie(d.config)
	for {
		_, err := dcs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{ResourceVersion: written.ResourceVersion, Limit: 1})
		if err == nil {
			return written.ResourceVersion
		}
		if ctx.Err() != nil {
			t.Fatalf("the daemon did not reach resourceVersion %s: %v", written.ResourceVersion, err)
		}
	}
}

// serveConfigMap is where most serve tests start: the shared control
// plane, a namespace of the test's with the config map a (k=1), and a
// daemon caching configmaps that has caught up with it.
func serveConfigMap(t *testing.T) (*controlplane.ControlPlane, kubernetes.Interface, string, *daemon) {
	t.Helper()
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil, "k", "1")
	d := startServe(t, cp, "configmaps")
	d.caughtUp(t, cs)
	return cp, cs, ns, d
}

// kubectlBoth runs kubectl with args against the API server and against
// the daemon, each with a discovery cache of its own.
func kubectlBoth(t *testing.T, cp *controlplane.ControlPlane, d *daemon, args ...string) (want, got [3]string) {
	t.Helper()
	run := func(kc, cacheDir string) [3]string {
		out, errOut, code := kubectl(t, kc, append(args, "--cache-dir", cacheDir)...)
		return [3]string{out, strings.TrimSpace(errOut), fmt.Sprint(code)}
	}
	return run(cp.AdminKubeconfig(), filepath.Join(d.dir, "cache-apiserver")), run(d.kubeconfig, filepath.Join(d.dir, "cache-daemon"))
}

// TestServeMatchesKubectl: plain kubectl prints through the daemon what it
// prints from the API server: tables of built-in kinds and of a CRD with
// printer columns, selectors, paging, JSON, one object, a missing one.
func TestServeMatchesKubectl(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns, other := namespace(t, cs), namespace(t, cs)
	// Listings of every namespace select this test's objects (mine): the
	// namespaces of earlier tests may still be emptying while it runs.
	mine := "test=" + ns
	for i, name := range []string{"e", "d", "c", "b", "a"} {
		createCM(t, cs, ns, name, map[string]string{"app": []string{"web", "db"}[i%2], "test": ns}, "k", name)
	}
	createCM(t, cs, other, "a", map[string]string{"test": ns}, "k", "other")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "token", Namespace: ns}, StringData: map[string]string{"a": "b"}}
	if _, err := cs.CoreV1().Secrets(ns).Create(context.Background(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createWidgets(t, cp.AdminConfig(), cp.AdminKubeconfig(), ns)
	d := startServe(t, cp, "cm,secrets,widgets.example.com")
	d.caughtUp(t, cs)

	info, err := os.Stat(d.kubeconfig)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig %s: %v, mode %v; want 0600", d.kubeconfig, err, info.Mode().Perm())
	}
	if info, err := os.Stat(filepath.Dir(d.kubeconfig)); err != nil || info.Mode().Perm() != 0o700 || !strings.HasPrefix(d.kubeconfig, d.dir) {
		t.Errorf("kubeconfig directory: %v, mode %v; want 0700 under XDG_RUNTIME_DIR", err, info.Mode().Perm())
	}

	cases := [][]string{
		{"get", "cm", "-A", "-l", mine},
		{"get", "cm", "-n", ns},
		{"get", "configmaps", "-n", ns, "-l", "app=web"},
		{"get", "cm", "-n", ns, "-l", "app!=web", "--show-labels"},
		{"get", "cm", "-n", ns, "--field-selector", "metadata.name=c"},
		{"get", "cm", "-A", "--field-selector", "metadata.namespace=" + ns},
		{"get", "cm", "-n", ns, "--chunk-size", "2"},
		{"get", "cm", "-A", "-l", mine, "--chunk-size", "2", "-o", "name"},
		{"get", "cm/b", "-n", ns},
		{"get", "cm", "b", "-n", ns, "-o", "yaml"},
		{"get", "cm", "nope", "-n", ns},
		{"get", "secrets", "-n", ns},
		{"get", "widgets", "-n", ns},
		{"get", "wd", "-n", ns, "-o", "wide", "--sort-by", ".spec.size"},
		{"get", "widgets.example.com", "-A"},
		{"get", "cm", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,K:.data.k"},
		{"get", "cm"}, // the kubeconfig's namespace
		{"get", "cm", "-n", ns, "--field-selector", "data.k=a"},
		{"get", "cm", "-n", ns, "-l", "app in (web"},
		{"get", "secrets", "-A", "--field-selector", "data.x=1"},
		{"get", "secrets", "-n", ns, "--field-selector", "type=Opaque"},
		{"get", "widgets", "-n", ns, "--field-selector", "spec.color=red"},
		{"get", "ns", ns},
		{"get", "endpoints", "-n", ns}, // added on demand; the API server's deprecation warning
		{"get", "flowschemas"},         // rows sorted by precedence, as the API server's printer sorts them
		{"get", "--raw", "/api/v1/namespaces/" + ns + "/configmaps/b"}, // the API server's bytes, its final newline too
		{"get", "--raw", "/api/v1/namespaces/" + ns + "/configmaps/nope"},
		// The self reviews k9s asks before it lists, passed to the API server.
		{"auth", "can-i", "list", "configmaps", "-n", ns},
		{"auth", "can-i", "--list", "-n", ns},
		{"auth", "whoami"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			want, got := kubectlBoth(t, cp, d, args...)
			want[0], got[0] = normalizeAge(want[0]), normalizeAge(got[0])
			if got != want {
				t.Errorf("through the daemon:\n%s\n%s\nexit %s\n--- from the API server:\n%s\n%s\nexit %s", got[0], got[1], got[2], want[0], want[1], want[2])
			}
		})
	}

	t.Run("a kind not cached", func(t *testing.T) { // added on demand (serve_ondemand_test.go)
		_, stderr, code := kubectl(t, d.kubeconfig, "get", "nope", "--cache-dir", filepath.Join(d.dir, "cache-daemon"))
		if code == 0 || !strings.Contains(stderr, `the server doesn't have a resource type "nope"`) {
			t.Errorf("exit %d, stderr %q; want kubectl's unknown type", code, stderr)
		}
	})

	t.Run("-o json", func(t *testing.T) {
		want, got := kubectlBoth(t, cp, d, "get", "cm,secrets", "-n", ns, "-o", "json")
		var wantList, gotList struct{ Items []map[string]any }
		if err := json.Unmarshal([]byte(want[0]), &wantList); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(got[0]), &gotList); err != nil {
			t.Fatalf("through the daemon: %v\n%s\n%s", err, got[0], got[1])
		}
		if len(gotList.Items) != 6 || !reflect.DeepEqual(gotList.Items, wantList.Items) {
			t.Errorf("items differ:\n%s\n--- from the API server:\n%s", got[0], want[0])
		}
	})
}

// TestServeWatch: `kubectl get -w` through the daemon prints the current
// rows, then the changes made after it started, as it does from the API
// server.
func TestServeWatch(t *testing.T) {
	cp, cs, ns, d := serveConfigMap(t)

	watchers := map[string]*proc{}
	for who, kc := range map[string]string{"daemon": d.kubeconfig, "apiserver": cp.AdminKubeconfig()} {
		p := startCmd(t, exec.Command(kubectlBinary, "get", "cm", "-n", ns, "-w", "--output-watch-events",
			"--kubeconfig", kc, "--cache-dir", filepath.Join(d.dir, who)))
		watchers[who] = p
	}
	read := func(n int) map[string][]string {
		out := map[string][]string{}
		for who, p := range watchers {
			for range n {
				out[who] = append(out[who], normalizeAge(p.Next()))
			}
		}
		return out
	}
	same := func(lines map[string][]string) {
		t.Helper()
		if !slices.Equal(lines["daemon"], lines["apiserver"]) {
			t.Errorf("through the daemon:\n%s\n--- from the API server:\n%s", strings.Join(lines["daemon"], "\n"), strings.Join(lines["apiserver"], "\n"))
		}
	}
	same(read(2)) // the header and a
	updateCM(t, cs, ns, "a", "k", "2")
	same(read(1))
	// Rows are aged when each event is sent, as the API server ages them:
	// b, created seconds after the watches began (they have sent a's
	// update), was <invalid> through a daemon that aged a watch's rows at
	// its start. Only time passing can show it: creationTimestamp counts
	// whole seconds, and the printer allows a second of skew.
	time.Sleep(3 * time.Second)
	createCM(t, cs, ns, "b", nil)
	same(read(1))
	deleteCM(t, cs, ns, "a")
	got := read(1)
	same(got)
	if f := strings.Fields(got["daemon"][0]); len(f) < 2 || f[0] != "DELETED" || f[1] != "a" {
		t.Errorf("the last event: %q, want DELETED a", got["daemon"][0])
	}

	t.Run("one object", func(t *testing.T) {
		p := startCmd(t, exec.Command(kubectlBinary, "get", "cm/b", "-n", ns, "-w", "--kubeconfig", d.kubeconfig, "--cache-dir", filepath.Join(d.dir, "one")))
		if h, row := p.Next(), p.Next(); !strings.HasPrefix(h, "NAME") || !strings.HasPrefix(row, "b ") {
			t.Fatalf("first lines %q, %q", h, row)
		}
		createCM(t, cs, ns, "c", nil) // not b: not printed
		updateCM(t, cs, ns, "b", "k", "v")
		if row := p.Next(); !strings.HasPrefix(row, "b ") || !strings.Contains(row, " 1 ") {
			t.Errorf("after b changed: %q", row)
		}
	})
}

// TestServeInformer: a client-go informer synced through the daemon holds
// what one synced from the API server holds, and follows the same changes,
// with the WatchList feature (a streaming list) on and off.
func TestServeInformer(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	d := startServe(t, cp, "configmaps")
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchListClient=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, features.WatchListClient, watchList)
			ns := namespace(t, cs)
			createCM(t, cs, ns, "a", nil, "k", "1")
			createCM(t, cs, ns, "b", nil, "k", "1")
			requests := &requestLog{}
			cfg := rest.CopyConfig(d.config)
			cfg.Wrap(requests.wrap)
			ours := startInformer(t, cfg, ns)
			theirs := startInformer(t, cp.AdminConfig(), ns)
			updateCM(t, cs, ns, "a", "k", "2")
			deleteCM(t, cs, ns, "b")
			createCM(t, cs, ns, "c", nil, "k", "3")
			want := map[string]string{"a": "2", "c": "3"}
			ours.waitFor(t, "through the daemon", want)
			theirs.waitFor(t, "from the API server", want)
			if streamed := requests.has("sendInitialEvents=true"); streamed != watchList {
				t.Errorf("a streaming list asked: %v, want %v; requests:\n%s", streamed, watchList, requests)
			}
		})
	}
}

// informer is a ConfigMap informer of one namespace, its state as name ->
// data.k.
type informer struct {
	mu      sync.Mutex
	state   map[string]string
	changed chan struct{}
}

func startInformer(t *testing.T, cfg *rest.Config, ns string) *informer {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cfg)
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := f.Core().V1().ConfigMaps().Informer()
	in := &informer{state: map[string]string{}, changed: make(chan struct{}, 1)}
	set := func(obj any, deleted bool) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		cm := obj.(*corev1.ConfigMap)
		in.mu.Lock()
		if deleted {
			delete(in.state, cm.Name)
		} else {
			in.state[cm.Name] = cm.Data["k"]
		}
		in.mu.Unlock()
		select {
		case in.changed <- struct{}{}:
		default:
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { set(o, false) },
		UpdateFunc: func(_, o any) { set(o, false) },
		DeleteFunc: func(o any) { set(o, true) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
	syncCtx, done := context.WithTimeout(ctx, patience)
	defer done()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	return in
}

func (in *informer) waitFor(t *testing.T, who string, want map[string]string) {
	t.Helper()
	deadline := time.After(patience)
	for {
		in.mu.Lock()
		got := maps.Clone(in.state)
		in.mu.Unlock()
		if reflect.DeepEqual(got, want) {
			return
		}
		select {
		case <-in.changed:
		case <-deadline:
			t.Fatalf("the informer %s holds %v, want %v", who, got, want)
		}
	}
}

// requestLog records the URLs a client asks for.
type requestLog struct {
	mu   sync.Mutex
	urls []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.urls = append(l.urls, r.URL.RequestURI())
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (l *requestLog) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.urls, func(u string) bool { return strings.Contains(u, s) })
}

func (l *requestLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.urls, "\n")
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestServeRaw: the daemon's own answers over HTTP: a watch resumed from a
// list's resourceVersion, 410 Expired for one older than its history, 401
// without the token or with a wrong one.
func TestServeRaw(t *testing.T) {
	_, cs, ns, d := serveConfigMap(t)
	code, body := openAt(t, d.config, "/api/v1/namespaces/"+ns+"/configmaps")
	var list corev1.ConfigMapList
	if err := json.NewDecoder(body).Decode(&list); err != nil || code != 200 {
		t.Fatalf("LIST: %d %v", code, err)
	}
	updateCM(t, cs, ns, "a", "k", "2")
	code, body = openAt(t, d.config, "/api/v1/namespaces/"+ns+"/configmaps?watch=true&resourceVersion="+list.ResourceVersion)
	ev := readEvent(t, body)
	if code != 200 || ev.Type != "MODIFIED" || ev.Object.Metadata.Name != "a" || ev.Object.Data["k"] != "2" {
		t.Errorf("watch from the list's resourceVersion: %d %+v, want MODIFIED a with k=2", code, ev)
	}

	_, body = openAt(t, d.config, "/api/v1/namespaces/"+ns+"/configmaps?watch=true&resourceVersion=1")
	var gone struct {
		Type   string
		Object metav1.Status
	}
	if err := json.NewDecoder(body).Decode(&gone); err != nil || gone.Type != "ERROR" || gone.Object.Code != 410 || gone.Object.Reason != metav1.StatusReasonExpired {
		t.Errorf("watch from resourceVersion 1: %+v (%v), want an ERROR event 410 Expired", gone, err)
	}

	for _, token := range []string{"", "wrong"} {
		cfg := rest.CopyConfig(d.config)
		cfg.BearerToken = token
		code, body := openAt(t, cfg, "/api/v1/configmaps")
		var st metav1.Status
		if err := json.NewDecoder(body).Decode(&st); err != nil || code != 401 || st.Reason != metav1.StatusReasonUnauthorized {
			t.Errorf("token %q: %d %+v, want 401 Unauthorized", token, code, st)
		}
	}
	if code, _ := openAt(t, d.config, "/readyz"); code != 200 {
		t.Errorf("/readyz: %d, want 200", code)
	}
}

func readEvent(t *testing.T, body io.Reader) event {
	t.Helper()
	line, err := bufio.NewReader(body).ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading a watch event: %v", err)
	}
	var ev event
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatalf("not a watch event: %q: %v", line, err)
	}
	return ev
}

// TestServeRefusesWrites: kubectl's writes through the daemon are refused
// with 405 and a message that says it is a read-only cache; the object is
// untouched.
func TestServeRefusesWrites(t *testing.T) {
	_, cs, ns, d := serveConfigMap(t)
	manifest := filepath.Join(t.TempDir(), "cm.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: "+ns+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"create", "cm", "new", "-n", ns},
		{"delete", "cm", "a", "-n", ns},
		{"apply", "-f", manifest},
		{"label", "cm", "a", "x=y", "-n", ns},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, stderr, code := kubectl(t, d.kubeconfig, append(args, "--cache-dir", filepath.Join(d.dir, "cache"))...)
			if code == 0 || !strings.Contains(stderr, "is not allowed: this endpoint is a read-only cache") {
				t.Errorf("exit %d, stderr:\n%s\nwant an error saying it is a read-only cache", code, stderr)
			}
		})
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "a", metav1.GetOptions{}); err != nil {
		t.Errorf("a after the refused delete: %v", err)
	}
}

// TestServeStops: SIGINT ends the daemon's watches, then the daemon, which
// removes its kubeconfig; --print-kubeconfig prints what it writes.
func TestServeStops(t *testing.T) {
	cp := cluster.Get(t)
	d := startServe(t, cp, "configmaps", "--print-kubeconfig")
	written, err := os.ReadFile(d.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var printed []string
	for len(printed) < strings.Count(string(written), "\n") {
		printed = append(printed, d.Next())
	}
	if strings.Join(printed, "\n")+"\n" != string(written) {
		t.Errorf("printed:\n%s\nwritten:\n%s", strings.Join(printed, "\n"), written)
	}
	_, watch := openAt(t, d.config, "/api/v1/configmaps?watch=1")
	if err := d.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, watch); err != nil {
		t.Errorf("the watch ended with %v, want its end", err)
	}
	if code := d.Wait(); code != 0 {
		t.Errorf("exit %d after SIGINT, want 0; stderr:\n%s", code, d.Stderr.String())
	}
	if _, err := os.Stat(d.kubeconfig); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig is still there: %v", err)
	}
}

// TestServeBadInput: bad arguments are one line of error, exit 1.
func TestServeBadInput(t *testing.T) {
	cp := cluster.Get(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "cm", "--port", "-1"}, "error: invalid --port -1: want 0 to 65535"},
		{[]string{"serve", "nope"}, `error: the server doesn't have a resource type "nope"`},
		{[]string{"serve", "cm/a"}, "error: serve caches whole kinds: name no objects"},
	} {
		_, stderr, code := runOnce(t, nil, append(tt.args, "--kubeconfig", cp.AdminKubeconfig())...)
		assertOneLineError(t, stderr, code, tt.want)
	}
}

// TestServeMetadataInformer: a metadata-only informer (client-go's metadata
// client, as controller-runtime's metadata watches use it) lists and
// watches PartialObjectMetadata through the daemon.
func TestServeMetadataInformer(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", map[string]string{"v": "1"})
	d := startServe(t, cp, "configmaps")
	mc := metadata.NewForConfigOrDie(d.config)
	f := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, ns, nil)
	inf := f.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps")).Informer()
	changed := make(chan struct{}, 1)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { notify(changed) },
		UpdateFunc: func(any, any) { notify(changed) },
		DeleteFunc: func(any) { notify(changed) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		f.Shutdown()
	}()
	f.Start(ctx.Done())
	state := func() string {
		var out []string
		for _, o := range inf.GetStore().List() {
			m := o.(*metav1.PartialObjectMetadata)
			out = append(out, m.Name+":"+m.Labels["v"])
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	wait := func(want string) {
		t.Helper()
		deadline := time.After(patience)
		for state() != want {
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("the metadata informer holds %q, want %q", state(), want)
			}
		}
	}
	wait("a:1")
	createCM(t, cs, ns, "b", map[string]string{"v": "2"})
	deleteCM(t, cs, ns, "a")
	wait("b:2")
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// TestServeFanOut: ten kubectl watches through the daemon, each seeing a
// change, add no WATCH at the API server (its apiserver_longrunning_requests
// gauge of configmaps WATCHes stays as it was with the daemon alone).
func TestServeFanOut(t *testing.T) {
	_, cs, ns, d := serveConfigMap(t)
	before := watchesAtServer(t, cs)
	if before < 1 {
		t.Fatalf("the API server counts %d configmaps WATCHes with the daemon running, want its one at least", before)
	}
	var watchers []*proc
	for i := range 10 {
		p := startCmd(t, exec.Command(kubectlBinary, "get", "cm", "-n", ns, "-w",
			"--kubeconfig", d.kubeconfig, "--cache-dir", filepath.Join(d.dir, fmt.Sprint("cache-", i))))
		if h, row := p.Next(), p.Next(); !strings.HasPrefix(h, "NAME") || !strings.HasPrefix(row, "a ") {
			t.Fatalf("watcher %d starts with %q, %q", i, h, row)
		}
		watchers = append(watchers, p)
	}
	createCM(t, cs, ns, "b", nil)
	for i, p := range watchers {
		if row := p.Next(); !strings.HasPrefix(row, "b ") {
			t.Errorf("watcher %d printed %q, want b", i, row)
		}
	}
	if after := watchesAtServer(t, cs); after != before {
		t.Errorf("the API server has %d configmaps WATCHes with 10 clients on the daemon, %d without: want no more", after, before)
	}
}

// watchesAtServer is the API server's count of open configmaps WATCHes.
func watchesAtServer(t *testing.T, cs kubernetes.Interface) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.SplitSeq(string(raw), "\n") {
		if strings.HasPrefix(line, "apiserver_longrunning_requests{") && strings.Contains(line, `resource="configmaps"`) &&
			strings.Contains(line, `verb="WATCH"`) {
			var v float64
			if _, err := fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &v); err == nil {
				n += int(v)
			}
		}
	}
	return n
}
