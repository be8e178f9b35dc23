package timelineview

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/timelinetest"
)

func keys(m *model, ks ...string) {
	for _, k := range ks {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		m.Update(msg)
	}
}

// TestModel: the keys move the selection and the cursor, zoom, filter,
// and Enter shows the revision under the cursor; NO_COLOR draws no
// escape sequence.
func TestModel(t *testing.T) {
	s := recorded(t)
	ctx := context.Background()
	srcs := Details{Clusters: []timeline.Cluster{{Context: "kind-a", Record: s}}, Resources: map[string]kube.Resource{
		timelinetest.Pods:   {GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespaced: true},
		timelinetest.Leases: {GVR: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, Kind: "Lease", Namespaced: true},
	}}
	tl, err := timeline.Build(ctx, srcs.Clusters, timeline.Query{Kinds: timelinetest.Kinds(), Since: start, Until: start.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(tl, &detailer{ctx: ctx, Details: srcs}, false)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	view := m.View()
	if !strings.Contains(view, keysHelp) || !strings.Contains(view, "> app-7d9f8c6b5-00000") || strings.Contains(view, "\x1b[") {
		t.Fatalf("first screen:\n%s", view)
	}
	keys(m, "j", "j")
	if l := m.lane(); l == nil || l.Name != "app-7d9f8c6b5-00004" {
		t.Errorf("after j j: lane %v, want app-7d9f8c6b5-00004", l)
	}
	full := m.until.Sub(m.since)
	keys(m, "+")
	if got := m.until.Sub(m.since); got != full/2 {
		t.Errorf("after +: a span of %s, want %s", got, full/2)
	}
	keys(m, "-", "-")
	if got := m.until.Sub(m.since); got != full {
		t.Errorf("after - -: a span of %s, want the whole %s", got, full)
	}
	keys(m, "/", "n", "o", "d", "e", "-", "1", "enter")
	if l := m.lane(); l == nil || l.Name != "node-1" || strings.Contains(m.View(), "node-0") {
		t.Errorf("after /node-1: lane %v; screen:\n%s", l, m.View())
	}
	keys(m, "enter")
	text := strings.Join(m.text, "\n")
	if !strings.Contains(text, "history --diff:\nMODIFIED leases.coordination.k8s.io/node-1") || !strings.Contains(text, "get --at ") || !strings.Contains(text, "holderIdentity: node-1") {
		t.Errorf("after enter:\n%s", text)
	}
	keys(m, "esc")
	if m.text != nil {
		t.Error("esc did not leave the revision")
	}
}
