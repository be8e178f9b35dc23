package watch

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// fixedClient lists one page and streams evs, then its last event forever.
type fixedClient struct {
	page   Page[obj]
	evs    []WatchEvent[obj]
	closed bool
}

func (c *fixedClient) List(context.Context, ListRequest) (Page[obj], error) { return c.page, nil }

func (c *fixedClient) Watch(context.Context, WatchRequest) (Stream[obj], error) { return c, nil }

func (c *fixedClient) Next() (WatchEvent[obj], error) {
	ev := c.evs[0]
	if len(c.evs) > 1 {
		c.evs = c.evs[1:]
	}
	return ev, nil
}

func (c *fixedClient) Close() { c.closed = true }

var errUpper = errors.New("no uppercase")

// upper is a conversion that fails on an object named in capitals.
func upper(o obj) (string, error) {
	if o.Name != strings.ToLower(o.Name) {
		return "", errUpper
	}
	return strings.ToUpper(o.Name) + "@" + o.RV, nil
}

func TestMap(t *testing.T) {
	if n := reflect.TypeFor[WatchEvent[obj]]().NumField(); n != 5 {
		t.Fatalf("WatchEvent has %d fields: mappedStream.Next copies 5", n)
	}
	gone := errors.New("gone")
	c := &fixedClient{
		page: Page[obj]{Items: []obj{{"a", "1"}, {"b", "2"}}, ResourceVersion: "2", Continue: "c"},
		evs: []WatchEvent[obj]{
			{Type: WatchAdded, Object: obj{"c", "3"}, ResourceVersion: "3"},
			{Type: WatchBookmark, ResourceVersion: "4", InitialEventsEnd: true},
			{Type: WatchDeleted, Object: obj{"a", "5"}, ResourceVersion: "5"},
			{Type: WatchError, Err: gone},
			{Type: WatchModified, Object: obj{"B", "6"}, ResourceVersion: "6"},
		},
	}
	m := Map(Client[obj](c), upper)
	page, err := m.List(t.Context(), ListRequest{})
	if want := (Page[string]{Items: []string{"A@1", "B@2"}, ResourceVersion: "2", Continue: "c"}); err != nil || !reflect.DeepEqual(page, want) {
		t.Fatalf("List = %+v, %v; want %+v", page, err, want)
	}
	s, err := m.Watch(t.Context(), WatchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []WatchEvent[string]{
		{Type: WatchAdded, Object: "C@3", ResourceVersion: "3"},
		{Type: WatchBookmark, ResourceVersion: "4", InitialEventsEnd: true},
		{Type: WatchDeleted, Object: "A@5", ResourceVersion: "5"},
		{Type: WatchError, Err: gone},
	}
	for i, w := range want {
		if ev, err := s.Next(); err != nil || !reflect.DeepEqual(ev, w) {
			t.Fatalf("event %d = %+v, %v; want %+v", i, ev, err, w)
		}
	}
	if _, err := s.Next(); !errors.Is(err, errUpper) {
		t.Fatalf("an object fn fails on: %v, want its error", err)
	}
	s.Close()
	if !c.closed {
		t.Fatal("Close did not close the stream")
	}
	c.page.Items = append(c.page.Items, obj{"C", "7"})
	if _, err := m.List(t.Context(), ListRequest{}); !errors.Is(err, errUpper) {
		t.Fatalf("a page with an object fn fails on: %v, want its error", err)
	}
}

// BenchmarkMap is the cost of Map's adapter per watch event: the same
// stream read as a watcher reads it (through the Stream interface) and
// through Map with a conversion that does nothing.
func BenchmarkMap(b *testing.B) {
	ev := WatchEvent[obj]{Type: WatchModified, Object: obj{"a", "1"}, ResourceVersion: "1"}
	id := func(o obj) (obj, error) { return o, nil }
	for _, bc := range []struct {
		name string
		c    Client[obj]
	}{
		{"direct", &fixedClient{evs: []WatchEvent[obj]{ev}}},
		{"mapped", Map(Client[obj](&fixedClient{evs: []WatchEvent[obj]{ev}}), id)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := opened(b, bc.c)
			for b.Loop() {
				if _, err := s.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// opened is c's stream, its type hidden from the compiler as a watcher's is.
//
//go:noinline
func opened(b *testing.B, c Client[obj]) Stream[obj] {
	s, err := c.Watch(b.Context(), WatchRequest{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}
