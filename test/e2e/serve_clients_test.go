package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// wireEvent is one watch event as a client reads it off the wire.
type wireEvent struct {
	Type   string `json:"type"`
	Object struct {
		Kind     string `json:"kind"`
		Code     int    `json:"code"`
		Message  string `json:"message"`
		Metadata struct {
			Name            string            `json:"name"`
			ResourceVersion string            `json:"resourceVersion"`
			Annotations     map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

func (e wireEvent) String() string {
	if e.Type == "ERROR" {
		return fmt.Sprintf("ERROR %d", e.Object.Code)
	}
	return e.Type + " " + e.Object.Metadata.Name + "@" + e.Object.Metadata.ResourceVersion
}

// watchAll reads a whole watch (it must end: a timeoutSeconds, or an
// ERROR) from cfg's server.
func watchAll(t *testing.T, cfg *rest.Config, path string) []wireEvent {
	t.Helper()
	code, body := openAt(t, cfg, path)
	if code != http.StatusOK {
		b, _ := io.ReadAll(body)
		t.Fatalf("GET %s: %d %s", path, code, b)
	}
	return readAll(t, body)
}

// readAll reads a watch's events until it ends.
func readAll(t *testing.T, body io.Reader) []wireEvent {
	t.Helper()
	var evs []wireEvent
	dec := json.NewDecoder(body)
	for {
		var ev wireEvent
		if err := dec.Decode(&ev); err == io.EOF {
			return evs
		} else if err != nil {
			t.Fatalf("reading watch event %d: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
}

// TestServeAllNamespacesFlag: serve takes kubectl's -A (its default, every
// namespace), which overrides -n as kubectl's does.
func TestServeAllNamespacesFlag(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	for _, args := range [][]string{{"-A"}, {"--all-namespaces", "-n", ns}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			d := startServeIn(t, dir, cp.AdminKubeconfig(), append([]string{"configmaps"}, args...)...)
			d.caughtUp(t, cs)
			st := runIn(t, dir, "serve", "status", "--kubeconfig", cp.AdminKubeconfig())
			if !strings.Contains(st[0], "\nconfigmaps ") || strings.Contains(st[0], "configmaps -n") {
				t.Errorf("serve %s status:\n%s\nwant configmaps of every namespace", strings.Join(args, " "), st[0])
			}
		})
	}
}

// TestServeClosingBookmark: a watch of a namespace that ends at its
// timeoutSeconds, with bookmarks allowed, ends through the daemon as at the
// API server with a BOOKMARK past the changes of other namespaces made
// while it ran, from which a resume replays nothing.
func TestServeClosingBookmark(t *testing.T) {
	c, cs, ns, d := serveConfigMap(t)
	list, err := kubernetes.NewForConfigOrDie(d.config).CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/namespaces/" + ns + "/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=" + list.ResourceVersion
	servers := []struct {
		who  string
		cfg  *rest.Config
		body io.ReadCloser
	}{{who: "the API server", cfg: c.AdminConfig()}, {who: "the daemon", cfg: d.config}}
	for i := range servers {
		_, servers[i].body = openAt(t, servers[i].cfg, path)
	}
	updateCM(t, cs, ns, "a", "k", "2")
	other := createCM(t, cs, namespace(t, cs), "elsewhere", nil) // the API server's bookmark comes 2 s before the end: well after
	for _, s := range servers {
		evs := readAll(t, s.body)
		if len(evs) < 2 || evs[0].String() != "MODIFIED a@"+evs[0].Object.Metadata.ResourceVersion || evs[len(evs)-1].Type != "BOOKMARK" {
			t.Errorf("%s: %v, want MODIFIED a then a closing BOOKMARK", s.who, evs)
			continue
		}
		last := evs[len(evs)-1].Object.Metadata.ResourceVersion
		if compareRV(last, other.ResourceVersion) < 0 {
			t.Errorf("%s: the closing bookmark at %s is older than the change elsewhere at %s", s.who, last, other.ResourceVersion)
		}
		again := watchAll(t, d.config, strings.Replace(path, "timeoutSeconds=4&resourceVersion="+list.ResourceVersion, "timeoutSeconds=1&resourceVersion="+last, 1))
		if slices.ContainsFunc(again, func(e wireEvent) bool { return e.Type != "BOOKMARK" }) {
			t.Errorf("%s: a resume from the closing bookmark replays %v", s.who, again)
		}
	}
}

// compareRV compares two resourceVersions as numbers.
func compareRV(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// TestServeResumeFromBeforeStart: a client that read the API server before
// the daemon started (a resourceVersion older than the daemon's first list)
// resumes its watch at the daemon from that resourceVersion and is sent what
// the API server would send it, event for event; an exact LIST there is
// answered as the API server answers it when the daemon can tell (no object
// that existed then changed since), else 410 and the client lists again.
// The 410 of a watch from before what the daemon can hold (its --history
// has no room for the API server's changes since) names the oldest
// resourceVersion it can resume from, as the API server's does.
func TestServeResumeFromBeforeStart(t *testing.T) {
	c := cluster.Get(t)
	cs := admin(t, c)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil, "k", "1")
	held, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	updateCM(t, cs, ns, "a", "k", "2")
	created := createCM(t, cs, ns, "b", nil)
	createCM(t, cs, ns, "c", nil)
	deleteCM(t, cs, ns, "c")
	createCM(t, cs, ns, "d", nil)
	d := startServe(t, c, "configmaps", "--history", "16")
	d.caughtUp(t, cs)

	base := "/api/v1/namespaces/" + ns + "/configmaps"
	path := base + "?watch=1&timeoutSeconds=2&resourceVersion=" + held.ResourceVersion
	want, got := watchAll(t, c.AdminConfig(), path), watchAll(t, d.config, path)
	if !slices.Equal(eventList(want), eventList(got)) {
		t.Errorf("watch from %s (before the daemon's start):\nthe API server: %v\nthe daemon:     %v", held.ResourceVersion, want, got)
	}

	exact := func(cfg *rest.Config, rv string) (int, []string) {
		code, body := openAt(t, cfg, base+"?resourceVersionMatch=Exact&resourceVersion="+rv)
		var l corev1.ConfigMapList
		_ = json.NewDecoder(body).Decode(&l)
		var names []string
		for _, o := range l.Items {
			names = append(names, o.Name+"@"+o.ResourceVersion)
		}
		return code, names
	}
	// After b's creation came only creations and deletions of objects made
	// since: the daemon can tell the state then.
	if code, names := exact(d.config, created.ResourceVersion); code != 200 {
		t.Errorf("exact list at %s: %d %v", created.ResourceVersion, code, names)
	} else if wantCode, wantNames := exact(c.AdminConfig(), created.ResourceVersion); !slices.Equal(names, wantNames) || wantCode != 200 {
		t.Errorf("exact list at %s: the daemon %v, the API server %d %v", created.ResourceVersion, names, wantCode, wantNames)
	}
	if code, names := exact(d.config, held.ResourceVersion); code != http.StatusGone {
		t.Errorf("exact list at %s, before a's change of which the daemon knows no earlier version: %d %v, want 410", held.ResourceVersion, code, names)
	}

	for i := range 20 { // the daemon's history of 16 moves past b's creation
		updateCM(t, cs, ns, "b", "i", strconv.Itoa(i))
	}
	d.caughtUp(t, cs)
	gone := watchAll(t, d.config, base+"?watch=1&resourceVersion="+created.ResourceVersion)
	prefix := "too old resource version: " + created.ResourceVersion + " ("
	if len(gone) != 1 || gone[0].Type != "ERROR" || gone[0].Object.Code != 410 || !strings.HasPrefix(gone[0].Object.Message, prefix) {
		t.Fatalf("watch from %s, beyond a history of 16: %+v, want 410", created.ResourceVersion, gone)
	}
	oldest := strings.TrimSuffix(strings.TrimPrefix(gone[0].Object.Message, prefix), ")")
	if evs := watchAll(t, d.config, base+"?watch=1&timeoutSeconds=1&resourceVersion="+oldest); slices.ContainsFunc(evs, func(e wireEvent) bool { return e.Type == "ERROR" }) {
		t.Errorf("watch from the oldest resourceVersion the 410 named (%s): %v", oldest, evs)
	}
}

// eventList is what a client keeps of a watch: its events but bookmarks,
// whose timing differs between two servers.
func eventList(evs []wireEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Type != "BOOKMARK" {
			out = append(out, e.String())
		}
	}
	return out
}

// listNamesRVs is the names and resourceVersions of a namespace's config
// maps as cs lists them at resourceVersion rv (not older than).
func listNamesRVs(t *testing.T, cs kubernetes.Interface, ns, rv string) []string {
	t.Helper()
	l, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range l.Items {
		out = append(out, o.Name+"@"+o.ResourceVersion)
	}
	return out
}
