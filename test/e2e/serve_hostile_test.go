package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// answer is what a client reads of an answer: its code, and the Status
// when it is one.
type answer struct {
	code   int
	status metav1.Status
	isJSON bool
}

func (a answer) String() string {
	if !a.isJSON {
		return strconv.Itoa(a.code) + " (not a Status)"
	}
	return fmt.Sprintf("%d %s %q", a.code, a.status.Reason, a.status.Message)
}

// ask sends one request over HTTP/1.1 (whose client sends what it is
// given: HTTP/2's refuses a header larger than the server said it takes)
// with cfg's credentials, and reads a Status answer (the first event's
// object, for a watch's ERROR event).
func ask(t *testing.T, cfg *rest.Config, method, path string, header http.Header) answer {
	t.Helper()
	c := rest.CopyConfig(cfg)
	c.NextProtos = []string{"http/1.1"}
	client, err := rest.HTTPClientFor(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, cfg.Host+path, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %.80s: %.200v", method, path, err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(io.LimitReader(resp.Body, 1<<20)).ReadBytes('\n')
	a := answer{code: resp.StatusCode}
	var ev struct {
		Type   string        `json:"type"`
		Object metav1.Status `json:"object"`
	}
	if err := json.Unmarshal(line, &a.status); err == nil && a.status.Kind == "Status" {
		a.isJSON = true
	} else if err := json.Unmarshal(line, &ev); err == nil && ev.Type == "ERROR" {
		a.status, a.isJSON, a.code = ev.Object, true, int(ev.Object.Code)
	}
	return a
}

// TestServeHostileInput: requests no client library sends get the API
// server's answer from the daemon: a Status with the API server's code and
// reason, or the same refusal of Go's HTTP server beneath both (a header
// of a megabyte, plain HTTP to the TLS port); writes are 405. Through it
// all, and through 500 watches opened and dropped at once and readers that
// never read their watch, the daemon keeps serving: a reading watcher gets
// every change, and its answers afterwards are the API server's.
func TestServeHostileInput(t *testing.T) {
	c, cs, ns, d := serveConfigMap(t)
	api := c.AdminConfig()
	base := "/api/v1/namespaces/" + ns + "/configmaps"
	huge := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		name, path string
		header     http.Header
		// differs is why the daemon answers otherwise than the API
		// server, and what: a client's error is 400, not 500.
		differs string
		want    answer
	}{
		{name: "malformed labelSelector", path: base + "?labelSelector=" + url.QueryEscape("a in (b")},
		{name: "malformed labelSelector in a watch", path: base + "?watch=1&labelSelector=" + url.QueryEscape("!!a")},
		{name: "unsupported fieldSelector field", path: base + "?fieldSelector=spec.nope%3Dx"},
		{name: "limit -1", path: base + "?limit=-1"},
		{name: "limit abc", path: base + "?limit=abc"},
		{name: "garbage continue", path: base + "?limit=1&continue=garbage"},
		{name: "base64 garbage continue", path: base + "?limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"},
		{name: "resourceVersion abc", path: base + "?resourceVersion=abc"},
		{name: "watch from resourceVersion abc", path: base + "?watch=1&resourceVersion=abc",
			differs: "the API server answers 500 InternalError to a client's bad resourceVersion",
			want:    answer{code: 400, isJSON: true, status: metav1.Status{Reason: metav1.StatusReasonBadRequest}}},
		{name: "resourceVersionMatch without resourceVersion", path: base + "?resourceVersionMatch=Exact"},
		{name: "resourceVersionMatch with a bad resourceVersion", path: base + "?resourceVersionMatch=Exact&resourceVersion=abc"},
		{name: "unknown resourceVersionMatch", path: base + "?resourceVersionMatch=Sometimes&resourceVersion=1"},
		{name: "timeoutSeconds abc", path: base + "?watch=1&timeoutSeconds=abc"},
		{name: "dot-dot in the path", path: "/api/v1/namespaces/" + ns + "/configmaps/../../kube-system/secrets"},
		{name: "a kind no one serves", path: "/api/v1/namespaces/" + ns + "/nonsense"},
		{name: "a group no one serves", path: "/apis/nonsense.example.com/v1/things"},
		{name: "a 1 MB URL", path: base + "?labelSelector=a%3D" + huge},
		{name: "a 1 MB header", path: base, header: http.Header{"X-Junk": {huge}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got := ask(t, api, http.MethodGet, tc.path, tc.header), ask(t, d.config, http.MethodGet, tc.path, tc.header)
			if tc.differs != "" {
				t.Logf("%s: the API server answered %s", tc.differs, want)
				want = tc.want
			}
			// Where the API server's mux answers a plain 404 (a group it
			// does not serve), the daemon's Status says the same, better.
			if got.code != want.code || want.isJSON && (!got.isJSON || got.status.Reason != want.status.Reason) {
				t.Errorf("the API server answered %s, the daemon %s", want, got)
			}
		})
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		for _, path := range []string{base, base + "/a"} {
			if a := ask(t, d.config, method, path, nil); a.code != http.StatusMethodNotAllowed || !a.isJSON || a.status.Code != 405 {
				t.Errorf("%s %s: %s, want a 405 Status", method, path, a)
			}
		}
	}
	want, got := plainHTTP(t, api.Host), plainHTTP(t, d.config.Host)
	if got != want {
		t.Errorf("plain HTTP to the TLS port: the API server answered %q, the daemon %q", want, got)
	}

	rss := daemonRSS(t, d)
	openAndDrop(t, d.config, base+"?watch=1", 500)
	awaitWatchers(t, d, 0)
	stalled := stallReaders(t, d.config, base+"?watch=1&resourceVersion=0", 20)
	lag, peak := changeUnderLoad(t, d, cs, ns, 200)
	for _, s := range stalled {
		s()
	}
	t.Logf("daemon RSS %d MiB before, %d MiB at most while 20 readers stalled and 200 updates of 64 KiB went by; the reading watcher's lag at most %s",
		rss>>20, peak>>20, lag)
	// What the daemon may hold for them: the changes' versions, shared by
	// every queue (200 of 64 KiB: 13 MiB), the store's window of changes
	// and the GC's headroom, which a loaded machine widens (95 MiB grew on a
	// quiet one, 231 MiB beside another make test). A copy of the bytes
	// queued per stalled reader grew it 836 MiB (a -race binary).
	if peak > rss+stalledGrowth {
		t.Errorf("the daemon's RSS grew from %d to %d MiB with 20 stalled readers (at most %d MiB more)", rss>>20, peak>>20, stalledGrowth>>20)
	}
	// The API server's list first, then the daemon's at a resourceVersion
	// it reaches: the API server's own may be one of another kind's writes
	// that the daemon's configmaps never see (it would wait, then answer
	// "Too large resource version", as the API server does).
	wantList := listNamesRVs(t, cs, ns, "")
	reached := d.caughtUp(t, cs)
	if want, got := wantList, listNamesRVs(t, kubernetes.NewForConfigOrDie(d.config), ns, reached); strings.Join(want, " ") != strings.Join(got, " ") {
		t.Errorf("after it all, the API server lists %v, the daemon %v", want, got)
	}
}

// plainHTTP sends a plain HTTP request to a TLS address and returns the
// first line of what comes back.
func plainHTTP(t *testing.T, host string) string {
	t.Helper()
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, patience)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(patience))
	if _, err := io.WriteString(conn, "GET /api/v1/configmaps HTTP/1.1\r\nHost: "+u.Host+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimSpace(line)
}

// openAndDrop opens n watches at once and drops each as soon as it is
// answered.
func openAndDrop(t *testing.T, cfg *rest.Config, path string, n int) {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path, nil)
			resp, err := client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			if resp.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("status %d", resp.StatusCode)
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("one of %d watches opened at once: %v", n, err)
	}
}

// awaitWatchers waits until the daemon counts n open configmaps watches.
func awaitWatchers(t *testing.T, d *daemon, n int) {
	t.Helper()
	want := fmt.Sprintf(`kubectl_reflect_serve_watchers{resource="configmaps"} %d`, n)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(patience)
	for !strings.Contains(daemonGet(t, d, "/metrics", true), want) {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the daemon never counted %d open watches", n)
		}
	}
}

// stalledGrowth bounds the daemon's RSS growth while 20 readers stall and
// 200 changes of 64 KiB go by: under what buffering each reader's bytes
// would cost.
const stalledGrowth = 384 << 20

// stallReaders opens n watches over HTTP/1.1 whose bodies no one reads,
// and returns what closes each.
func stallReaders(t *testing.T, cfg *rest.Config, path string, n int) []func() {
	t.Helper()
	c := rest.CopyConfig(cfg)
	c.NextProtos = []string{"http/1.1"}
	tlsConfig, err := rest.TLSConfigFor(c)
	if err != nil {
		t.Fatal(err)
	}
	var closers []func()
	for range n {
		// A transport each: a connection each, none of them shared.
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig.Clone(), DisableCompression: true, ForceAttemptHTTP2: false,
			TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}}
		req, _ := http.NewRequest(http.MethodGet, cfg.Host+path, nil)
		req.Header.Set("Authorization", "Bearer "+cfg.BearerToken)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		closers = append(closers, func() { resp.Body.Close() })
	}
	t.Cleanup(func() {
		for _, c := range closers {
			c()
		}
	})
	return closers
}

// changeUnderLoad updates config maps of 64 KiB n times while a watcher
// reads the daemon, checks that it is sent every change in order, and
// returns its largest lag (an update's return to its event's arrival) and
// the daemon's largest RSS meanwhile.
func changeUnderLoad(t *testing.T, d *daemon, cs kubernetes.Interface, ns string, n int) (time.Duration, int64) {
	t.Helper()
	// The daemon's resourceVersion: the API server's may be one that no
	// config map's change or bookmark brings the daemon to.
	l, err := kubernetes.NewForConfigOrDie(d.config).CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	arrived := make(chan arrival, n)
	_, body := openAt(t, d.config, "/api/v1/namespaces/"+ns+"/configmaps?watch=1&resourceVersion="+l.ResourceVersion)
	go func() {
		defer close(arrived)
		dec := json.NewDecoder(body)
		for {
			var ev wireEvent
			if dec.Decode(&ev) != nil {
				return
			}
			arrived <- arrival{ev.Object.Metadata.ResourceVersion, time.Now()}
		}
	}()
	var peak atomic.Int64
	stop := sampleRSS(t, d, &peak)
	payload := strings.Repeat("y", 64<<10)
	sent := make([]arrival, 0, n)
	for i := range n {
		cm := corev1ac.ConfigMap(fmt.Sprint("load-", i%10), ns).WithData(map[string]string{"payload": payload, "i": strconv.Itoa(i)})
		written, err := cs.CoreV1().ConfigMaps(ns).Apply(context.Background(), cm, metav1.ApplyOptions{FieldManager: "e2e", Force: true})
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, arrival{written.ResourceVersion, time.Now()})
	}
	var lag time.Duration
	for i, s := range sent {
		select {
		case a, ok := <-arrived:
			if !ok || a.rv != s.rv {
				t.Fatalf("change %d: the reading watcher got %q, want resourceVersion %s", i, a.rv, s.rv)
			}
			lag = max(lag, a.at.Sub(s.at))
		case <-time.After(patience):
			t.Fatalf("the reading watcher got %d of %d changes", i, n)
		}
	}
	stop()
	return lag, peak.Load()
}

// arrival is a resourceVersion and when it was seen.
type arrival struct {
	rv string
	at time.Time
}

// sampleRSS records the daemon's largest RSS in peak every 20 ms until the
// function it returns is called.
func sampleRSS(t *testing.T, d *daemon, peak *atomic.Int64) func() {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if rss, err := readRSS(d.Cmd.Process.Pid); err == nil && rss > peak.Load() {
				peak.Store(rss)
			}
			select {
			case <-tick.C:
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// daemonRSS is the daemon's resident set size.
func daemonRSS(t *testing.T, d *daemon) int64 {
	t.Helper()
	rss, err := readRSS(d.Cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return rss
}

// readRSS reads a process's VmRSS from /proc.
func readRSS(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
