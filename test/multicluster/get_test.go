package multicluster

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// TestGetMerged: get across three contexts prints one table whose rows are,
// context by context in the order given, kubectl's rows of that context
// after a CONTEXT cell, aligned as kubectl aligns a table; with -A the
// NAMESPACE column follows CONTEXT. Names and JSON say the context too,
// and --all-contexts reads every context of the kubeconfig.
func TestGetMerged(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	createCM(t, cs["east"], ns, "a", "k", "1")
	createCM(t, cs["east"], ns, "b")
	createCM(t, cs["west"], ns, "a", "k", "2", "l", "3")
	createCM(t, cs["west"], ns, "c")
	kc := kubeconfig(t, f, ns, nil)

	for _, extra := range [][]string{nil, {"-A"}, {"-l", "nope!=x"}} {
		t.Run(strings.Join(append([]string{"get", "cm"}, extra...), " "), func(t *testing.T) {
			out, errOut, code := run(t, kc, append([]string{"get", "cm", "--context", "west,east,north"}, extra...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var want []string
			for _, c := range []string{"west", "east", "north"} {
				kout, _, _ := kubectl(t, kc, append([]string{"get", "cm", "--context", c}, extra...)...)
				if kout == "" {
					continue // No resources found (on stderr)
				}
				k := rows(kout)
				if want == nil {
					want = append(want, "CONTEXT "+k[0])
				}
				for _, r := range k[1:] {
					want = append(want, c+" "+r)
				}
			}
			if got := rows(out); !slices.Equal(got, want) {
				t.Errorf("merged table:\n%s\nwant (kubectl's, per context):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if !aligned(out) {
				t.Errorf("columns not aligned:\n%s", out)
			}
		})
	}

	out, _, code := run(t, kc, "get", "cm", "--context", "west,east", "-o", "name")
	if want := "west configmap/a\nwest configmap/c\neast configmap/a\neast configmap/b\n"; code != 0 || out != want {
		t.Errorf("-o name: %d %q, want %q", code, out, want)
	}
	out, _, _ = run(t, kc, "get", "cm", "a", "--all-contexts", "-o", "json", "--ignore-not-found")
	var list struct {
		Items []struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
			Data map[string]string `json:"data"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	var got []string
	for _, it := range list.Items {
		got = append(got, it.Metadata.Annotations["kubectl-reflect.io/context"]+"="+it.Data["k"])
	}
	if want := []string{"east=1", "west=2"}; !slices.Equal(got, want) { // --all-contexts: east, north, west
		t.Errorf("-o json of cm a in every context: %v, want %v", got, want)
	}
}

// aligned says whether every line's columns start where the header's do.
func aligned(table string) bool {
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	starts := columnStarts(lines[0])
	for _, l := range lines[1:] {
		s := columnStarts(l)
		if len(s) < len(starts) || !slices.Equal(s[:len(starts)], starts) {
			return false
		}
	}
	return true
}

func columnStarts(line string) []int {
	var out []int
	for i := range line {
		if line[i] != ' ' && (i == 0 || line[i-1] == ' ') {
			out = append(out, i)
		}
	}
	return out
}

// TestGetContextErrors: a bad context list is one error line; a kind one
// cluster lacks is an error of that context alone: get prints what the
// others hold, the context's error after it, and exits 1, as kubectl does
// for partial results.
func TestGetContextErrors(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	for args, want := range map[string]string{
		"--context east,nowhere":        `error: context "nowhere" not found in the kubeconfig; its contexts are: east, north, west`,
		"--context east,east":           `error: --context "east,east": context "east" is given twice`,
		"--all-contexts --context=east": "error: --all-contexts and --context are exclusive: give one",
	} {
		for _, verb := range []string{"get", "watch", "serve"} {
			_, errOut, code := run(t, kc, append([]string{verb, "cm"}, strings.Fields(args)...)...)
			if code == 0 || strings.TrimRight(errOut, "\n") != want {
				t.Errorf("%s cm %s: exit %d, stderr %q; want %q", verb, args, code, errOut, want)
			}
		}
	}

	installWidgets(t, kc, "east")
	createWidget(t, kc, "east", "gear")
	out, errOut, code := run(t, kc, "get", "widgets", "--context", "east,west")
	if code != 1 || !slices.Equal(rows(out), []string{"CONTEXT NAME _", "east gear _"}) ||
		strings.TrimRight(errOut, "\n") != `context west: error: the server doesn't have a resource type "widgets"` {
		t.Errorf("get widgets in east (which has the CRD) and west: exit %d\n%s\nstderr: %s", code, out, errOut)
	}
}

// widgetsCRD is the custom resource installed in some contexts only.
var widgetsCRD = testkit.Widget("example.com")

// TestGetWatchContexts: get -w of several contexts is watch's one stream,
// CONTEXT after EVENT: each context's objects, then its changes.
func TestGetWatchContexts(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	createCM(t, cs["east"], ns, "a")
	createCM(t, cs["west"], ns, "b")
	w := start(t, kc, "get", "cm", "-w", "--context", "east,west")
	if h := rows(w.Next())[0]; h != "EVENT CONTEXT NAME DATA _" {
		t.Fatalf("header %q", h)
	}
	listed := []string{rows(w.Next())[0], rows(w.Next())[0]}
	slices.Sort(listed)
	if want := []string{"APPLIED east a 0 _", "APPLIED west b 0 _"}; !slices.Equal(listed, want) {
		t.Errorf("listed %q, want %q", listed, want)
	}
	createCM(t, cs["west"], ns, "c")
	if got := rows(w.Next())[0]; got != "APPLIED west c 0 _" {
		t.Errorf("after creating c in west: %q", got)
	}
}
