package timeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

var start = time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)

// small is a cluster of 20 pods on 2 nodes for 2 h, half replaced each
// hour, every new pod backing off.
func small() timelinetest.Config {
	return timelinetest.Config{Start: start, Span: 2 * time.Hour, Pods: 20, Nodes: 2, Namespaces: 2, Churn: 0.5, Warnings: 1, Seed: 3}
}

func record(t testing.TB, c timelinetest.Config) history.Record { return timelinetest.Temp(t, c) }

// glyphs is a lane's marks as glyphs, oldest first.
func glyphs(l *timeline.Lane) string {
	var b strings.Builder
	for _, m := range l.Marks {
		b.WriteRune(m.Type.Glyph())
	}
	return b.String()
}

func TestBuildMarks(t *testing.T) {
	s := record(t, small())
	tl, err := timeline.Build(context.Background(), []timeline.Cluster{{Context: "kind", Record: s}},
		timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for l := range tl.Lanes() {
		seen[l.Kind.Name+" "+glyphs(l)]++
	}
	for _, want := range []string{
		"pods o*x",      // there from the start, replaced: terminating (metadata changed), deleted
		"pods +*..!!!!", // created, scheduled (spec.nodeName), creating, running, backing off four times
		"leases.coordination.k8s.io o" + strings.Repeat("*", 23),
	} {
		if seen[want] == 0 {
			t.Errorf("no lane %q; lanes: %v", want, seen)
		}
	}
	if got := len(tl.Groups); got != 3 { // pods in team-0 and team-1, leases in kube-node-lease
		t.Errorf("%d groups, want 3", got)
	}
}

func TestBuildFilters(t *testing.T) {
	s := record(t, small())
	src := []timeline.Cluster{{Context: "kind", Record: s}}
	q := timeline.Query{Kinds: timelinetest.Kinds()[:1], Namespace: "team-1", Since: start.Add(time.Hour), Until: start.Add(90 * time.Minute)}
	tl, err := timeline.Build(context.Background(), src, q)
	if err != nil {
		t.Fatal(err)
	}
	for l := range tl.Lanes() {
		if l.Namespace != "team-1" {
			t.Errorf("lane %s/%s outside team-1", l.Namespace, l.Name)
		}
		for _, m := range l.Marks {
			if m.Time.Before(q.Since) || m.Time.After(q.Until) {
				t.Errorf("%s: mark at %s outside the span", l.Name, m.Time)
			}
		}
	}
	if tl.LaneCount() == 0 {
		t.Fatal("no lane")
	}
	q.Selector = labels.SelectorFromSet(labels.Set{"tier": "frontend"})
	if tl, err = timeline.Build(context.Background(), src, q); err != nil || tl.LaneCount() != 0 {
		t.Errorf("-l tier=frontend: %d lanes, %v; want none", tl.LaneCount(), err)
	}
}

// TestBuildContexts: the groups of several sources come in the order of
// the sources, then of the kinds, then by namespace; a kind one source
// does not record is left out of that source alone.
func TestBuildContexts(t *testing.T) {
	a, b := small(), small()
	b.Seed = 4
	src := []timeline.Cluster{{Context: "west", Record: record(t, a)}, {Context: "east", Record: record(t, b)}}
	kinds := append(timelinetest.Kinds(), timeline.Kind{Resource: "widgets.v1.example.com", Name: "widgets.example.com", Kind: "Widget", Namespaced: true})
	tl, err := timeline.Build(context.Background(), src, timeline.Query{Kinds: kinds, Since: start, Until: start.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range tl.Groups {
		got = append(got, g.Context+" "+g.Kind.Name+" "+g.Namespace)
	}
	want := "west pods team-0,west pods team-1,west leases.coordination.k8s.io kube-node-lease," +
		"east pods team-0,east pods team-1,east leases.coordination.k8s.io kube-node-lease"
	if strings.Join(got, ",") != want {
		t.Errorf("groups %v, want %s", got, want)
	}
}
