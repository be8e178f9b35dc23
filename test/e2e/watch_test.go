package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWatchMultiKind: one stream of two kinds, the existing objects first,
// then every change, in every list mode.
func TestWatchMultiKind(t *testing.T) {
	for _, mode := range []string{"--list-mode=whole", "--list-mode=paged", "--list-mode=streaming"} {
		t.Run(mode, func(t *testing.T) {
			cp := cluster.Get(t)
			cs := admin(t, cp)
			ns := namespace(t, cs)
			ctx := context.Background()
			createCM(t, cs, ns, "a", nil, "k", "1")
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: ns}, StringData: map[string]string{"k": "v"}}
			if _, err := cs.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			p := start(t, cp, "watch", "configmaps,secrets", "-n", ns, "-o", "json", mode)
			initial := eventStrings(p.events(2))
			slices.Sort(initial)
			want := []string{"APPLIED ConfigMap/" + ns + "/a", "APPLIED Secret/" + ns + "/s"}
			if !slices.Equal(initial, want) {
				t.Fatalf("initial events = %v, want %v", initial, want)
			}

			createCM(t, cs, ns, "b", nil)
			if got := p.nextEvent(); got.String() != "APPLIED ConfigMap/"+ns+"/b" {
				t.Errorf("after create: %v", got)
			}
			updated := updateCM(t, cs, ns, "a", "k", "2")
			if got := p.nextEvent(); got.String() != "APPLIED ConfigMap/"+ns+"/a" || got.Object.Metadata.ResourceVersion != updated.ResourceVersion || got.Object.Data["k"] != "2" {
				t.Errorf("after update: %v rv %s data %v", got, got.Object.Metadata.ResourceVersion, got.Object.Data)
			}
			if err := cs.CoreV1().Secrets(ns).Delete(ctx, "s", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := p.nextEvent(); got.String() != "DELETED Secret/"+ns+"/s" {
				t.Errorf("after delete: %v", got)
			}
			p.Quiet(2 * time.Second)
		})
	}
}

// TestWatchPagedList lists more objects than a page holds.
func TestWatchPagedList(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	const n = 1234
	createCMs(t, cs, ns, "cm-%04d", n)
	for _, mode := range []string{"--list-mode=whole", "--list-mode=paged", "--list-mode=streaming"} {
		p := start(t, cp, "watch", "cm", "-n", ns, "-o", "name", mode)
		seen := map[string]bool{}
		for range n {
			seen[p.Next()] = true
		}
		if len(seen) != n {
			t.Errorf("%s: %d distinct objects, want %d", mode, len(seen), n)
		}
		p.Quiet(time.Second)
	}
}

// TestWatchOptions: --watch-only, --events, --max-events, managed fields,
// selectors and a name.
func TestWatchOptions(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "web", map[string]string{"app": "web"})
	createCM(t, cs, ns, "db", map[string]string{"app": "db"})

	t.Run("label selector", func(t *testing.T) {
		out, errOut, code := runOnce(t, nil, "watch", "cm", "-n", ns, "-l", "app=web", "-o", "name", "--timeout", "3s", "--kubeconfig", cp.AdminKubeconfig())
		if code != 0 || out != "configmap/web\n" {
			t.Errorf("exit %d, out %q, stderr %q", code, out, errOut)
		}
	})
	t.Run("field selector", func(t *testing.T) {
		out, errOut, code := runOnce(t, nil, "watch", "cm", "-n", ns, "--field-selector", "metadata.name=db", "-o", "name", "--timeout", "3s", "--kubeconfig", cp.AdminKubeconfig())
		if code != 0 || out != "configmap/db\n" {
			t.Errorf("exit %d, out %q, stderr %q", code, out, errOut)
		}
	})
	t.Run("name", func(t *testing.T) {
		for _, args := range [][]string{{"cm", "web"}, {"configmap/web"}} {
			out, errOut, code := runOnce(t, nil, append([]string{"watch", "-n", ns, "-o", "name", "--max-events", "1", "--kubeconfig", cp.AdminKubeconfig()}, args...)...)
			if code != 0 || out != "configmap/web\n" {
				t.Errorf("%v: exit %d, out %q, stderr %q", args, code, out, errOut)
			}
		}
	})
	t.Run("selector filters live events", func(t *testing.T) {
		p := start(t, cp, "watch", "cm", "-n", ns, "-l", "app=web", "-o", "json", "--watch-only")
		line := p.UntilLine(func(i int) {
			updateCM(t, cs, ns, "db", "x", fmt.Sprint(i))
			updateCM(t, cs, ns, "web", "x", fmt.Sprint(i))
		})
		var got event
		if err := json.Unmarshal([]byte(line), &got); err != nil || got.String() != "APPLIED ConfigMap/"+ns+"/web" {
			t.Errorf("got %s, want only web", line)
		}
		if len(got.Object.Metadata.ManagedFields) != 0 {
			t.Errorf("managedFields printed without --show-managed-fields")
		}
		p.Quiet(time.Second)
	})
	t.Run("events deleted and max-events", func(t *testing.T) {
		p := start(t, cp, "watch", "cm", "-n", ns, "-o", "name", "--events", "deleted", "--max-events", "1")
		got := p.UntilLine(func(i int) {
			updateCM(t, cs, ns, "web", "y", fmt.Sprint(i))
			createCM(t, cs, ns, fmt.Sprintf("tmp-%d", i), nil)
			deleteCM(t, cs, ns, fmt.Sprintf("tmp-%d", i))
		})
		if !strings.HasPrefix(got, "configmap/tmp-") {
			t.Errorf("got %q, want the deletion of a tmp-N", got)
		}
		if code := p.Wait(); code != 0 {
			t.Errorf("exit %d after --max-events, want 0", code)
		}
	})
	t.Run("show managed fields", func(t *testing.T) {
		p := start(t, cp, "watch", "cm/web", "-n", ns, "-o", "json", "--show-managed-fields")
		if got := p.nextEvent(); len(got.Object.Metadata.ManagedFields) == 0 {
			t.Errorf("no managedFields with --show-managed-fields")
		}
	})
}

// TestWatchSignals: SIGINT and SIGTERM flush and exit 0.
func TestWatchSignals(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	createCM(t, cs, ns, "a", nil)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p := start(t, cp, "watch", "cm", "-n", ns)
		if got := p.Next(); !strings.HasPrefix(got, "EVENT") {
			t.Errorf("first line %q, want the table header", got)
		}
		p.Next()
		if err := p.Cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if code := p.Wait(); code != 0 {
			t.Errorf("%v: exit %d, want 0; stderr: %s", sig, code, p.Stderr.String())
		}
	}
}

// TestWatchDiff: --diff prints an object the watch has not seen before
// (listed at start, created) as one line with its columns, a change to one
// it has seen as a diff of the changed fields only (no resourceVersion
// noise), a deletion as one line; --diff-new prints a new object's YAML
// under its line.
func TestWatchDiff(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	d := createCM(t, cs, ns, "d", nil, "keep", "same", "k", "v1")
	p := start(t, cp, "watch", "cm", "-n", ns, "--diff", "--max-events", "4")
	header := func(typ, name, rv string) string {
		return typ + " configmap/" + name + " -n " + ns + " (resourceVersion " + rv + ")"
	}
	if got, want := p.Next(), header("APPLIED", "d", d.ResourceVersion)+" Data=2"; got != want {
		t.Errorf("listed at start: %q, want %q", got, want)
	}
	e := createCM(t, cs, ns, "e", nil, "x", "1")
	if got, want := p.Next(), header("APPLIED", "e", e.ResourceVersion)+" Data=1"; got != want {
		t.Fatalf("created: %q, want %q (one line)", got, want)
	}
	d2 := updateCM(t, cs, ns, "d", "k", "v2")
	deleteCM(t, cs, ns, "e")
	if code := p.Wait(); code != 0 { // --max-events 4: every line is in
		t.Fatalf("exit %d; stderr: %s", code, p.Stderr.String())
	}
	var rest []string
	for l := range p.Lines {
		rest = append(rest, l)
	}
	if len(rest) < 2 || rest[0] != header("APPLIED", "d", d2.ResourceVersion) {
		t.Fatalf("after the update and the deletion:\n%s", strings.Join(rest, "\n"))
	}
	deleted := regexp.MustCompile(`^DELETED configmap/e -n ` + ns + ` \(resourceVersion [0-9]+\) Data=1$`)
	if last := rest[len(rest)-1]; !deleted.MatchString(last) {
		t.Errorf("last line %q, want the deletion of e as one line", last)
	}
	var plus, minus []string
	for _, l := range rest[1 : len(rest)-1] {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"), strings.HasPrefix(l, " "):
		case strings.HasPrefix(l, "+"):
			plus = append(plus, l)
		case strings.HasPrefix(l, "-"):
			minus = append(minus, l)
		default:
			t.Errorf("not a diff line: %q", l)
		}
	}
	if fmt.Sprint(minus, plus) != "[-  k: v1] [+  k: v2]" {
		t.Errorf("diff lines %q %q, want only k's change", minus, plus)
	}

	t.Run("--diff-new", func(t *testing.T) {
		out, stderr, code := runOnce(t, nil, "watch", "cm/d", "-n", ns, "--diff", "--diff-new", "--max-events", "1", "--kubeconfig", cp.AdminKubeconfig())
		if code != 0 {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if want := header("APPLIED", "d", d2.ResourceVersion) + " Data=2"; lines[0] != want {
			t.Errorf("first line %q, want %q", lines[0], want)
		}
		for _, want := range []string{"  data:", "    k: v2", "    keep: same", "  kind: ConfigMap", "    name: d", "    uid: " + string(d.UID)} {
			if !slices.Contains(lines[1:], want) {
				t.Errorf("the YAML under the line lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "resourceVersion:") {
			t.Errorf("noise in the YAML:\n%s", out)
		}
	})
}
