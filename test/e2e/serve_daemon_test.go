package e2e

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	stdlog "log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// countedServer is the API server behind a TLS proxy that logs every
// request, with a kubeconfig of its own: what reaches the server from the
// clients of that kubeconfig.
type countedServer struct {
	kubeconfig string
	log        *requestLog
}

// newCountedServer starts the proxy; it reaches the server as the admin.
func newCountedServer(t *testing.T, cp *controlplane.ControlPlane) *countedServer {
	t.Helper()
	return newCountedServerAs(t, cp, cp.AdminConfig())
}

// newCountedServerAs starts the proxy; it reaches the server with as's
// credentials.
func newCountedServerAs(t *testing.T, cp *controlplane.ControlPlane, as *rest.Config) *countedServer {
	t.Helper()
	target, err := url.Parse(cp.Server())
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(as)
	if err != nil {
		t.Fatal(err)
	}
	log := &requestLog{}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Del("Authorization") // as's, added by rt
		},
		Transport:     log.wrap(rt),
		FlushInterval: -1,                            // watches
		ErrorLog:      stdlog.New(io.Discard, "", 0), // clients that end their watches
	}
	srv := httptest.NewTLSServer(proxy)
	t.Cleanup(srv.Close)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["counted"] = &clientcmdapi.Cluster{
		Server:                   srv.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}),
	}
	cfg.AuthInfos["counted"] = &clientcmdapi.AuthInfo{Token: "counted"}
	cfg.Contexts["counted"] = &clientcmdapi.Context{Cluster: "counted", AuthInfo: "counted"}
	cfg.CurrentContext = "counted"
	path := filepath.Join(t.TempDir(), "counted.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return &countedServer{kubeconfig: path, log: log}
}

// reads are the requests so far that are not watches: a LIST, a GET,
// discovery.
func (c *countedServer) reads() []string {
	c.log.mu.Lock()
	defer c.log.mu.Unlock()
	var out []string
	for _, u := range c.log.urls {
		if !strings.Contains(u, "watch=") {
			out = append(out, u)
		}
	}
	return out
}

// all are the requests so far.
func (c *countedServer) all() []string {
	c.log.mu.Lock()
	defer c.log.mu.Unlock()
	return slices.Clone(c.log.urls)
}

// serveCounted starts a daemon caching configmaps behind a countedServer,
// in a runtime directory of the test's, and waits until it caught up.
func serveCounted(t *testing.T, cp *controlplane.ControlPlane, cs kubernetes.Interface) (*countedServer, string, *daemon) {
	t.Helper()
	counted := newCountedServer(t, cp)
	dir := t.TempDir()
	d := startServeIn(t, dir, counted.kubeconfig, "configmaps")
	d.caughtUp(t, cs)
	return counted, dir, d
}

// runIn runs the binary with args in the runtime directory dir; ages in
// its output are blanked (normalizeAge), as they tick between two runs.
func runIn(t *testing.T, dir string, args ...string) [3]string {
	t.Helper()
	out, errOut, code := runOnce(t, []string{"XDG_RUNTIME_DIR=" + dir}, args...)
	return [3]string{normalizeAge(out), errOut, fmt.Sprint(code)}
}

// TestServeOnePerIdentity: a second daemon of the same cluster and user
// refuses to start and names the first; one of another user starts beside
// it (another server URL); the files are named by a hash of the identity (no token), private,
// and those of a daemon killed with SIGKILL are replaced by the next one.
func TestServeOnePerIdentity(t *testing.T) {
	cp := cluster.Get(t)
	dir := t.TempDir()
	d := startServeIn(t, dir, cp.AdminKubeconfig(), "configmaps")

	base := filepath.Base(d.kubeconfig)
	if !regexp.MustCompile(`^[0-9a-f]{32}\.kubeconfig$`).MatchString(base) {
		t.Errorf("kubeconfig file %s is not named <identity hash>.kubeconfig", base)
	}
	id := strings.TrimSuffix(base, ".kubeconfig")
	for _, ext := range []string{".kubeconfig", ".lock", ".json"} {
		fi, err := os.Stat(filepath.Join(filepath.Dir(d.kubeconfig), id+ext))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", fi.Name(), fi.Mode().Perm())
		}
	}
	var info struct {
		PID       int      `json:"pid"`
		Server    string   `json:"server"`
		Resources []string `json:"resources"`
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(d.kubeconfig), id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		t.Fatal(err)
	}
	if info.PID != d.Cmd.Process.Pid || info.Server != d.config.Host || !strings.Contains(strings.Join(info.Resources, " "), "configmaps.v1.") {
		t.Errorf("info %s, want pid %d at %s caching configmaps", raw, d.Cmd.Process.Pid, d.config.Host)
	}

	second := runIn(t, dir, "serve", "secrets", "--kubeconfig", cp.AdminKubeconfig())
	assertOneLineError(t, second[1], 1, fmt.Sprintf("error: a daemon already serves this identity: pid %d at %s", d.Cmd.Process.Pid, d.config.Host))

	other := startServeIn(t, dir, newCountedServer(t, cp).kubeconfig, "configmaps") // another server URL
	if other.kubeconfig == d.kubeconfig {
		t.Errorf("the daemons of two users share the kubeconfig %s", d.kubeconfig)
	}

	if err := d.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	next := startServeIn(t, dir, cp.AdminKubeconfig(), "configmaps")
	if next.kubeconfig != d.kubeconfig {
		t.Errorf("the next daemon's kubeconfig is %s, want %s", next.kubeconfig, d.kubeconfig)
	}
	if next.config.BearerToken == d.config.BearerToken {
		t.Error("the dead daemon's kubeconfig was kept")
	}
}

// TestServeGetUsesDaemon: with a daemon of the same identity caching
// config maps, get prints byte for byte what it prints with --no-daemon
// (but for the ages, which tick between the two runs),
// without one request at the API server (discovery included); a kind the
// daemon does not cache is read from the server; a client of another
// identity does not use the daemon; the stale files of a killed daemon
// send get to the API server.
func TestServeGetUsesDaemon(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", map[string]string{"app": "x"}, "k", "1")
	createCM(t, cs, ns, "b", nil, "k", "2")
	counted, dir, d := serveCounted(t, cp, cs)
	kc := []string{"--kubeconfig", counted.kubeconfig}
	for _, args := range [][]string{
		{"get", "cm", "-n", ns},
		{"get", "configmaps", "-n", ns, "-l", "app=x", "--show-labels"},
		{"get", "cm/a", "-n", ns, "-o", "json"},
		{"get", "cm", "a", "zz", "-n", ns, "-o", "yaml"},
		{"get", "cm", "-n", ns, "--field-selector", "metadata.name=b", "-o", "name"},
	} {
		before := len(counted.reads())
		got := runIn(t, dir, append(args, kc...)...)
		if reads := counted.reads()[before:]; len(reads) > 0 {
			t.Errorf("%v with the daemon asked the API server:\n%s", args, strings.Join(reads, "\n"))
		}
		want := runIn(t, dir, append(append(args, "--no-daemon"), kc...)...)
		if len(counted.reads()) == before {
			t.Errorf("%v --no-daemon asked the API server nothing", args)
		}
		if got != want {
			t.Errorf("%v with the daemon:\n%q\nwithout:\n%q", args, got, want)
		}
	}
	// A kind the daemon does not cache: from the API server, the same.
	args := append([]string{"get", "cm,secrets", "-n", ns}, kc...)
	assertAsNoDaemon(t, dir, "with the daemon", runIn(t, dir, args...), args...)
	// Another identity (the admin straight at the server): not the daemon's.
	before := len(counted.reads())
	runIn(t, dir, "get", "cm", "-n", ns, "--kubeconfig", cp.AdminKubeconfig())
	if len(counted.reads()) != before {
		t.Error("a client of another identity went to the daemon's server")
	}
	// The daemon killed: its files stay, stale; get reads the API server.
	if err := d.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	if _, err := os.Stat(d.kubeconfig); err != nil {
		t.Fatalf("the killed daemon's kubeconfig: %v", err)
	}
	args = append([]string{"get", "cm", "-n", ns}, kc...)
	assertAsNoDaemon(t, dir, "with a dead daemon's files", runIn(t, dir, args...), args...)
}

// assertAsNoDaemon fails the test unless got is what the binary run with
// args and --no-daemon in the runtime directory dir prints; when says
// how got was run.
func assertAsNoDaemon(t *testing.T, dir, when string, got [3]string, args ...string) {
	t.Helper()
	if want := runIn(t, dir, append(args, "--no-daemon")...); got != want {
		t.Errorf("%v %s:\n%q\nwith --no-daemon:\n%q", args, when, got, want)
	}
}

// TestServeWatchFallsBack: the daemon killed with SIGKILL under a running
// watch while config maps change: the watch goes on at the API server,
// resumed from the last resourceVersion the daemon sent (no LIST), and
// prints the events --no-daemon prints and kubectl's for the same period,
// none lost, none twice.
func TestServeWatchFallsBack(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil, "k", "0")
	createCM(t, cs, ns, "b", nil, "k", "0")
	counted, dir, d := serveCounted(t, cp, cs)

	before := len(counted.reads())
	ours := startIn(t, dir, "watch", "cm", "-n", ns, "-o", "json", "--kubeconfig", counted.kubeconfig)
	initial := ours.events(2)
	if reads := counted.reads()[before:]; len(reads) > 0 {
		t.Errorf("watch with the daemon asked the API server:\n%s", strings.Join(reads, "\n"))
	}
	direct := startIn(t, dir, "watch", "cm", "-n", ns, "-o", "json", "--no-daemon", "--kubeconfig", counted.kubeconfig)
	ref := startKubectl(t, cp, "get", "cm", "-n", ns, "-w", "-o", `jsonpath={.metadata.name} {.metadata.resourceVersion}{"\n"}`)
	directInitial := direct.events(2)
	refLines := []string{ref.Next(), ref.Next()}

	const changes = 30
	changed := make(chan error, 1)
	killAt := make(chan struct{})
	go func() { changed <- changeCMs(cs, ns, changes, killAt) }()
	evs := append(initial, ours.events(changes/2)...) // from the daemon
	if err := d.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(killAt)
	afterKill, allAfterKill := len(counted.reads()), len(counted.all())
	evs = append(evs, ours.events(changes-changes/2)...)
	if err := <-changed; err != nil {
		t.Fatal(err)
	}
	directEvs := append(directInitial, direct.events(changes)...)
	for range changes {
		refLines = append(refLines, ref.Next())
	}

	if got, want := eventLines(evs), eventLines(directEvs); !slices.Equal(got, want) {
		t.Errorf("events through the daemon, then the server:\n%s\nwith --no-daemon:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Object.Metadata.Name+" "+e.Object.Metadata.ResourceVersion)
	}
	if !slices.Equal(got, refLines) {
		t.Errorf("events (name resourceVersion):\n%s\nkubectl's:\n%s", strings.Join(got, "\n"), strings.Join(refLines, "\n"))
	}
	if reads := counted.reads()[afterKill:]; len(reads) > 0 {
		t.Errorf("after the daemon died, watch asked the API server more than a WATCH:\n%s", strings.Join(reads, "\n"))
	}
	if !slices.ContainsFunc(counted.all()[allAfterKill:], func(u string) bool { return strings.Contains(u, "watch=") }) {
		t.Errorf("after the daemon died, watch did not watch at the API server:\n%s", counted.log)
	}
	if s := ours.Stderr.String(); s != "" {
		t.Errorf("watch wrote on stderr:\n%s", s)
	}
}

// changeCMs updates a and b of ns in turn, n times, and creates c halfway
// and deletes it; from the half on, it waits for killAt to close first.
func changeCMs(cs kubernetes.Interface, ns string, n int, killAt <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for i := range n {
		if i == n/2 {
			<-killAt
		}
		var err error
		switch {
		case i == n/2+2:
			_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
		case i == n-3:
			err = cs.CoreV1().ConfigMaps(ns).Delete(ctx, "c", metav1.DeleteOptions{})
		default:
			name := []string{"a", "b"}[i%2]
			_, err = cs.CoreV1().ConfigMaps(ns).Update(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": fmt.Sprint(i + 1)}, // "0" was their first value
			}, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("change %d: %w", i, err)
		}
	}
	return nil
}

// eventLines renders events as "TYPE Kind/ns/name resourceVersion data".
func eventLines(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = fmt.Sprint(e.String(), " ", e.Object.Metadata.ResourceVersion, " ", e.Object.Data)
	}
	return out
}

// daemonGet GETs path at the daemon, with its token if withToken, and
// returns the body.
func daemonGet(t *testing.T, d *daemon, path string, withToken bool) string {
	t.Helper()
	cfg := rest.CopyConfig(d.config)
	if !withToken {
		cfg.BearerToken = ""
	}
	_, body := openAt(t, cfg, path)
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openAt GETs path with cfg's credentials and returns the status code and
// the body, read as it comes (a watch), closed when the test ends.
func openAt(t *testing.T, cfg *rest.Config, path string) (int, io.ReadCloser) {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp.StatusCode, resp.Body
}

// startIn starts the binary with args in the runtime directory dir.
func startIn(t *testing.T, dir string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "XDG_RUNTIME_DIR="+dir)
	return startCmd(t, cmd)
}

// TestServeStatusStop: `serve status` names the daemon and tables its
// resources with their objects and open watches, as /metrics counts them
// (behind the token); `serve stop` ends it
// (exit 0, files removed); without a daemon both say so in one line.
func TestServeStatusStop(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)
	dir := t.TempDir()
	d := startServeIn(t, dir, cp.AdminKubeconfig(), "configmaps")
	d.caughtUp(t, cs)
	w := startCmd(t, exec.Command(kubectlBinary, "get", "cm", "-n", ns, "-w", "--kubeconfig", d.kubeconfig, "--cache-dir", filepath.Join(dir, "cache")))
	w.Next()
	w.Next() // listed, watching

	st := runIn(t, dir, "serve", "status", "--kubeconfig", cp.AdminKubeconfig())
	lines := strings.Split(st[0], "\n")
	if st[2] != "0" || len(lines) < 6 || lines[0] != fmt.Sprintf("Daemon pid %d at %s since %s", d.Cmd.Process.Pid, d.config.Host, lines[0][strings.LastIndex(lines[0], " ")+1:]) ||
		lines[1] != "kubeconfig: "+d.kubeconfig || strings.Join(strings.Fields(lines[3]), " ") != "RESOURCE OBJECTS RESOURCEVERSION WATCHERS EVENTS SENT LAG" {
		t.Fatalf("serve status: %q", st)
	}
	cms := strings.Fields(lines[4])
	if len(cms) != 6 || cms[0] != "configmaps" || cms[3] != "1" || cms[1] == "0" {
		t.Errorf("configmaps row %q, want its objects and the one watcher", lines[4])
	}
	if !strings.HasPrefix(lines[5], "namespaces ") {
		t.Errorf("second row %q, want namespaces", lines[5])
	}
	metrics := daemonGet(t, d, "/metrics", true)
	for _, want := range []string{
		`kubectl_reflect_serve_watchers{resource="configmaps"} 1`,
		`kubectl_reflect_serve_objects{resource="configmaps"} ` + cms[1],
		`kubectl_reflect_serve_events_sent_total{resource="configmaps"} `,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics does not say %q:\n%s", want, metrics)
		}
	}
	if got := daemonGet(t, d, "/metrics", false); !strings.Contains(got, "Unauthorized") {
		t.Errorf("/metrics without the token: %s", got)
	}

	stop := runIn(t, dir, "serve", "stop", "--kubeconfig", cp.AdminKubeconfig())
	if stop != [3]string{fmt.Sprintf("Stopped the daemon pid %d at %s\n", d.Cmd.Process.Pid, d.config.Host), "", "0"} {
		t.Errorf("serve stop: %q", stop)
	}
	if code := d.Wait(); code != 0 {
		t.Errorf("the daemon exited %d after stop, want 0", code)
	}
	if _, err := os.Stat(d.kubeconfig); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig is still there: %v", err)
	}
	for _, verb := range []string{"stop", "status"} {
		_, stderr, code := runOnce(t, []string{"XDG_RUNTIME_DIR=" + dir}, "serve", verb, "--kubeconfig", cp.AdminKubeconfig())
		assertOneLineError(t, stderr, code, "error: no kubectl reflect serve runs for this cluster and user")
	}
}

// TestServeIdleExit: with --idle-exit, a daemon no one asks anything
// exits by itself, cleanly, removing its files.
func TestServeIdleExit(t *testing.T) {
	cp := cluster.Get(t)
	d := startServeIn(t, t.TempDir(), cp.AdminKubeconfig(), "configmaps", "--idle-exit", "1s")
	if code := d.Wait(); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if !strings.Contains(d.Stderr.String(), "No request for 1s: exiting\n") {
		t.Errorf("stderr %q does not say why it exited", d.Stderr.String())
	}
	if _, err := os.Stat(d.kubeconfig); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig is still there: %v", err)
	}
	_, stderr, code := runOnce(t, nil, "serve", "cm", "--idle-exit", "-1s", "--kubeconfig", cp.AdminKubeconfig())
	assertOneLineError(t, stderr, code, "error: invalid --idle-exit -1s: want 0 or more")
}
