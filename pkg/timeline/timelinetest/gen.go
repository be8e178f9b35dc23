package timelinetest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

// Config is the cluster Write records.
type Config struct {
	// Start is when recording began; Span how long it ran.
	Start time.Time
	Span  time.Duration
	// Pods run from the start across Namespaces (team-0, team-1, ...) on
	// Nodes (each with its Lease, renewed every 10 s and kept every 5
	// minutes, as the recorder keeps renewals).
	Pods, Nodes, Namespaces int
	// Churn is the fraction of the pods replaced each hour (a rollout, a
	// scale down and up): each one terminating, deleted, and a new one
	// created, scheduled, creating, running, with kubelet's Events.
	Churn float64
	// Warnings is the fraction of new pods that back off (a Warning Event
	// seen four times).
	Warnings float64
	Seed     uint64
}

// Cluster3000 is the cluster: 3,000 pods on 50 nodes for 24 h.
func Cluster3000(start time.Time) Config {
	return Config{Start: start, Span: 24 * time.Hour, Pods: 3000, Nodes: 50, Namespaces: 10, Churn: 0.1, Warnings: 0.05, Seed: 1}
}

// The resources Write records.
const (
	Pods   = "pods.v1."
	Leases = "leases.v1.coordination.k8s.io"
	Events = "events.v1."
)

// Kinds are the kinds Write records but Events, as a timeline.Query
// names them.
func Kinds() []timeline.Kind {
	return []timeline.Kind{
		{Resource: Pods, Name: "pods", Kind: "Pod", Namespaced: true},
		{Resource: Leases, Name: "leases.coordination.k8s.io", Kind: "Lease", Namespaced: true},
	}
}

// Stats counts the revisions Write wrote of each resource.
type Stats map[string]int

// Write records c's cluster into s, in resourceVersion (and time) order,
// in batches as a recorder writes them.
func Write(ctx context.Context, s history.Record, c Config) (Stats, error) {
	g := newGen(c)
	g.schedule()
	slices.SortStableFunc(g.steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	return g.write(ctx, s)
}

// step is one revision to write, built when written.
type step struct {
	at    int64 // milliseconds after Start
	res   uint8 // 0 pods, 1 leases, 2 events
	op    history.Op
	obj   int32 // its pod, node or event
	phase uint8 // a pod's podStep, an event's count
}

type pod struct {
	ns, name, node string
	created        time.Time
}

type event struct {
	ns, name, pod, typ, reason, message string
	first                               time.Time
}

type gen struct {
	c      Config
	rng    *rand.Rand
	pods   []pod
	events []event
	steps  []step
}

func newGen(c Config) *gen {
	return &gen{c: c, rng: rand.New(rand.NewPCG(c.Seed, 7))}
}

func (g *gen) ms(d time.Duration) int64 { return d.Milliseconds() }

func (g *gen) addPod(created time.Time) int32 {
	i := len(g.pods)
	g.pods = append(g.pods, pod{
		ns:      fmt.Sprintf("team-%d", i%max(g.c.Namespaces, 1)),
		name:    fmt.Sprintf("app-7d9f8c6b5-%05d", i),
		node:    fmt.Sprintf("node-%d", g.rng.IntN(max(g.c.Nodes, 1))),
		created: created,
	})
	return int32(i)
}

// schedule makes every step of the span.
func (g *gen) schedule() {
	c := g.c
	alive := make([]int32, 0, c.Pods)
	for range c.Pods {
		p := g.addPod(c.Start.Add(-time.Duration(g.rng.IntN(72)) * time.Hour))
		alive = append(alive, p)
		g.steps = append(g.steps, step{at: 0, res: 0, op: history.Initial, obj: p, phase: uint8(podRunning)})
	}
	for n := range c.Nodes {
		g.steps = append(g.steps, step{at: 0, res: 1, op: history.Initial, obj: int32(n)})
		for t := 5 * time.Minute; t < c.Span; t += 5 * time.Minute {
			g.steps = append(g.steps, step{at: g.ms(t) + int64(n*97), res: 1, op: history.Modified, obj: int32(n)})
		}
	}
	replaced := int(c.Churn * float64(c.Pods) * c.Span.Hours())
	for k := range replaced {
		at := time.Duration(float64(c.Span) * (float64(k) + 0.5) / float64(replaced))
		j := g.rng.IntN(len(alive))
		old := alive[j]
		g.steps = append(g.steps,
			step{at: g.ms(at), res: 0, op: history.Modified, obj: old, phase: uint8(podTerminating)},
			step{at: g.ms(at + 2*time.Second), res: 0, op: history.Deleted, obj: old, phase: uint8(podTerminating)})
		g.event(old, at, "Normal", "Killing", "Stopping container app", 1)
		alive[j] = g.replacement(at + time.Second)
	}
}

// replacement schedules a new pod's life from at, and its Events.
func (g *gen) replacement(at time.Duration) int32 {
	p := g.addPod(g.c.Start.Add(at))
	for i, d := range []time.Duration{0, time.Second, 2 * time.Second, 5 * time.Second} {
		op := history.Modified
		if i == 0 {
			op = history.Added
		}
		g.steps = append(g.steps, step{at: g.ms(at + d), res: 0, op: op, obj: p, phase: uint8(i)})
	}
	g.event(p, at+time.Second, "Normal", "Scheduled", "Successfully assigned "+g.pods[p].ns+"/"+g.pods[p].name+" to "+g.pods[p].node, 1)
	g.event(p, at+3*time.Second, "Normal", "Pulled", `Container image "registry.example/app:1.4.2" already present on machine`, 1)
	g.event(p, at+4*time.Second, "Normal", "Created", "Created container: app", 1)
	g.event(p, at+5*time.Second, "Normal", "Started", "Started container app", 1)
	if g.rng.Float64() < g.c.Warnings {
		g.event(p, at+6*time.Second, "Warning", "BackOff", "Back-off restarting failed container app in pod "+g.pods[p].name, 4)
	}
	return p
}

// event schedules an Event about pod p first seen at at, seen count
// times (a minute, then 2, then 4 apart), deleted an hour on (its TTL).
func (g *gen) event(p int32, at time.Duration, typ, reason, message string, count int) {
	e := int32(len(g.events))
	pd := g.pods[p]
	g.events = append(g.events, event{ns: pd.ns, name: fmt.Sprintf("%s.%x", pd.name, 0x187e0000+int(e)), pod: pd.name,
		typ: typ, reason: reason, message: message, first: g.c.Start.Add(at)})
	g.steps = append(g.steps, step{at: g.ms(at), res: 2, op: history.Added, obj: e, phase: 1})
	for n, d := 2, time.Minute; n <= count; n, d = n+1, d*2 {
		g.steps = append(g.steps, step{at: g.ms(at + d), res: 2, op: history.Modified, obj: e, phase: uint8(n)})
	}
	if at+time.Hour < g.c.Span {
		g.steps = append(g.steps, step{at: g.ms(at + time.Hour), res: 2, op: history.Deleted, obj: e, phase: uint8(count)})
	}
}
