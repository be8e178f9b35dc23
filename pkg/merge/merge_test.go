package merge

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"
)

func TestVersion(t *testing.T) {
	v := Version{"west": "20", "east": "10"}
	got, err := ParseVersion(v.String())
	if err != nil || len(got) != 2 || got["east"] != "10" || got["west"] != "20" {
		t.Fatalf("ParseVersion(%q) = %v, %v", v.String(), got, err)
	}
	if (Version{"east": "10", "west": "20"}).String() != v.String() {
		t.Error("one position has two spellings")
	}
	for _, bad := range []string{"12345", "e30", "!!", ""} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
}

func TestWithContextColumn(t *testing.T) {
	for in, want := range map[string]string{
		"null":                 `null`,
		"":                     `null`,
		"[]":                   `[` + contextColumn + `]`,
		`[{"name":"Name"}]`:    `[` + contextColumn + `,{"name":"Name"}]`,
		`[{"name":"A"},{"b"}]`: `[` + contextColumn + `,{"name":"A"},{"b"}]`,
	} {
		if got := withContextColumn(in); got != want {
			t.Errorf("withContextColumn(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRow(t *testing.T) {
	got := row([]byte(`{"cells":["cm",1],"object":{"metadata":{"name":"cm","resourceVersion":"5"}}}`), "X", `we"st`)
	if cells := gjson.GetBytes(got, "cells").Raw; cells != `["we\"st","cm",1]` {
		t.Errorf("cells %s", cells)
	}
	if rv := gjson.GetBytes(got, "object.metadata.resourceVersion").String(); rv != "X" {
		t.Errorf("resourceVersion %q", rv)
	}
	if c := gjson.GetBytes(got, `object.metadata.annotations.kubectl-reflect\.io/context`).String(); c != `we"st` {
		t.Errorf("annotation %q in %s", c, got)
	}
}

// TestMergerInitialEvents: a streaming list's initial-events-end bookmark
// comes once, after every cluster's; other bookmarks wait for it; each
// object's resourceVersion is the position of every cluster.
func TestMergerInitialEvents(t *testing.T) {
	m := newMerger([]Cluster{{Name: "a"}, {Name: "b"}}, nil, true)
	obj := func(rv string) json.RawMessage {
		return json.RawMessage(`{"kind":"ConfigMap","metadata":{"name":"x","resourceVersion":"` + rv + `"}}`)
	}
	end := func(rv string) json.RawMessage {
		return json.RawMessage(`{"kind":"ConfigMap","metadata":{"resourceVersion":"` + rv + `","annotations":{"k8s.io/initial-events-end":"true"}}}`)
	}
	steps := []struct {
		i        int
		e        wireEvent
		want     string // the event type sent, "" for none
		wantRV   Version
		wantsEnd bool
	}{
		{0, wireEvent{"ADDED", obj("1")}, "ADDED", Version{"a": "1"}, false},
		{0, wireEvent{"BOOKMARK", end("2")}, "", nil, false},
		{1, wireEvent{"BOOKMARK", obj("7")}, "", nil, false},
		{1, wireEvent{"ADDED", obj("8")}, "ADDED", Version{"a": "2", "b": "8"}, false},
		{1, wireEvent{"BOOKMARK", end("9")}, "BOOKMARK", Version{"a": "2", "b": "9"}, true},
		{0, wireEvent{"BOOKMARK", end("3")}, "BOOKMARK", Version{"a": "3", "b": "9"}, false},
	}
	for n, s := range steps {
		out, last := m.next(s.i, s.e)
		if last {
			t.Fatalf("step %d ended the watch", n)
		}
		if s.want == "" {
			if out != nil {
				t.Errorf("step %d sent %s", n, out)
			}
			continue
		}
		if typ := gjson.GetBytes(out, "type").String(); typ != s.want {
			t.Errorf("step %d sent %s, want %s", n, out, s.want)
		}
		if rv := gjson.GetBytes(out, "object.metadata.resourceVersion").String(); rv != s.wantRV.String() {
			t.Errorf("step %d: resourceVersion %q, want %v", n, rv, s.wantRV)
		}
		ends := gjson.GetBytes(out, `object.metadata.annotations.k8s\.io/initial-events-end`).Exists()
		if ends != s.wantsEnd {
			t.Errorf("step %d: initial-events-end %v, want %v: %s", n, ends, s.wantsEnd, out)
		}
	}
	if out, last := m.next(1, wireEvent{"ERROR", json.RawMessage(`{"kind":"Status","message":"too old"}`)}); !last ||
		gjson.GetBytes(out, "object.message").String() != "context b: too old" {
		t.Errorf("an ERROR: %s, last %v", out, last)
	}
}
