package multicluster

import (
	"strings"
	"testing"
	"time"
)

// TestTimelineContexts: piped, timeline of several contexts draws each
// context's lanes under groups that name it, in the order the contexts
// are given: an object both clusters hold has a lane in each, one only
// east holds a lane in east's group alone.
func TestTimelineContexts(t *testing.T) {
	f := fleet.Get(t)
	cs := clients(t, f)
	ns := namespaceIn(t, cs)
	kc := kubeconfig(t, f, ns, nil)
	serveContexts(t, kc, "configmaps", "--record", "--context", "east,west")
	since := time.Now()
	createCM(t, cs["east"], ns, "canary")
	east := createCM(t, cs["east"], ns, "settings", "k", "1")
	west := createCM(t, cs["west"], ns, "settings", "k", "3")
	recorded(t, kc, "east", ns, east.ResourceVersion) // canary was recorded before it
	recorded(t, kc, "west", ns, west.ResourceVersion)

	window := []string{"--since", since.UTC().Format(time.RFC3339Nano), "--until", time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano), "--width", "200"}
	want := []string{"east: configmaps in " + ns + ": canary settings", "west: configmaps in " + ns + ": settings"}
	// -n, and without it each context's own namespace (both are ns in kc),
	// as get --context a,b reads each.
	for _, nsArgs := range [][]string{{"-n", ns}, nil} {
		args := append(append([]string{"timeline", "configmaps", "--context", "east,west"}, nsArgs...), window...)
		out, errOut, code := run(t, kc, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d, stderr %q\n%s", args, code, errOut, out)
		}
		got := groupedLanes(out)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: groups and their lanes:\n%s\nwant:\n%s\nfrom:\n%s", args, strings.Join(got, "\n"), strings.Join(want, "\n"), out)
		}
	}
}

// groupedLanes reads plain timeline output as one line a group: its
// heading (a line not indented, after the density row), a colon, and its
// lanes' names (lines indented by two), up to the legend.
func groupedLanes(out string) []string {
	var groups []string
	started := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "density "):
			started = true
		case strings.HasPrefix(line, "legend:"):
			return groups
		case !started || line == "":
		case strings.HasPrefix(line, "  ") && len(groups) > 0:
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "  "), " ")
			groups[len(groups)-1] += " " + name
		case !strings.HasPrefix(line, " "):
			groups = append(groups, line+":")
		}
	}
	return groups
}
