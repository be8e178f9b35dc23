package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// wireEvent is a watch event as it is sent.
type wireEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// clusterEvent is the next event of the i-th cluster's stream; end when
// that stream ended.
type clusterEvent struct {
	i   int
	ev  wireEvent
	end bool
}

// watch answers a WATCH: every cluster's stream, opened from its position
// in the request's resourceVersion, as one (see merger). It ends when any
// of them ends (its client watches again from the last resourceVersion it
// read, a position in each) or sends an ERROR, which it passes on.
func (h *Handler) watch(w http.ResponseWriter, r *http.Request) {
	v, ok := h.positions(w, r)
	if !ok {
		return
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	bodies, contentType, ok := h.open(w, r.WithContext(ctx), v)
	if !ok {
		return
	}
	events := make(chan clusterEvent)
	for i, body := range bodies {
		wg.Go(func() {
			defer body.Close()
			decode(ctx, i, json.NewDecoder(body), events)
		})
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	m := newMerger(h.clusters, v, serve.IsTrue(r.URL.Query().Get("sendInitialEvents")))
	for {
		var ce clusterEvent
		select {
		case ce = <-events:
		case <-ctx.Done():
			return
		}
		if ce.end {
			return
		}
		out, last := m.next(ce.i, ce.ev)
		if out != nil {
			if _, err := w.Write(out); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
		if last {
			return
		}
	}
}

// decode sends the events of the i-th stream to events until it ends.
func decode(ctx context.Context, i int, dec *json.Decoder, events chan<- clusterEvent) {
	for {
		var ce clusterEvent
		ce.i = i
		if err := dec.Decode(&ce.ev); err != nil {
			ce.end = true
		}
		select {
		case events <- ce:
		case <-ctx.Done():
			return
		}
		if ce.end {
			return
		}
	}
}

// open opens every cluster's watch at once; on a failure it closes those
// opened and writes the failed cluster's answer.
func (h *Handler) open(w http.ResponseWriter, r *http.Request, v Version) (bodies []io.ReadCloser, contentType string, ok bool) {
	q := query(r, v)
	resps := make([]*http.Response, len(h.clusters))
	errs := make([]error, len(h.clusters))
	var wg sync.WaitGroup
	for i, c := range h.clusters {
		wg.Go(func() {
			req, err := request(r, c, q(c))
			if err == nil {
				resps[i], err = c.Client.Do(req)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	failed := -1
	for i := range h.clusters {
		if failed < 0 && (errs[i] != nil || resps[i].StatusCode != http.StatusOK) {
			failed = i
		}
	}
	if failed < 0 {
		for _, resp := range resps {
			bodies = append(bodies, resp.Body)
		}
		return bodies, resps[0].Header.Get("Content-Type"), true
	}
	a := answer{err: errs[failed]}
	if a.err == nil {
		a = answer{code: resps[failed].StatusCode}
		a.body, _ = io.ReadAll(io.LimitReader(resps[failed].Body, 1<<20))
	}
	for _, resp := range resps {
		if resp != nil {
			resp.Body.Close()
		}
	}
	writeClusterError(w, h.clusters[failed], a)
	return nil, "", false
}

// merger turns each cluster's events into the view's: objects annotated
// with their cluster, their resourceVersion the position of every stream
// after them (so that a watch resumed from it misses and repeats
// nothing), Tables with the Context column; bookmarks carry that position
// too, and a streaming list's initial-events-end bookmark is sent once
// every cluster has sent its own.
type merger struct {
	clusters []Cluster
	at       Version
	initial  bool   // a streaming list whose initial events have not all ended
	ended    []bool // the clusters whose initial events ended
}

func newMerger(clusters []Cluster, from Version, streaming bool) *merger {
	at := Version{}
	if from != nil {
		at = from.clone()
	}
	return &merger{clusters: clusters, at: at, initial: streaming, ended: make([]bool, len(clusters))}
}

// next is what the view sends for the i-th cluster's event e (nil:
// nothing), and whether it is the last.
func (m *merger) next(i int, e wireEvent) ([]byte, bool) {
	name := m.clusters[i].Name
	obj := []byte(e.Object)
	switch e.Type {
	case "ERROR":
		msg := gjson.GetBytes(obj, "message").String()
		obj, _ = sjson.SetBytes(obj, "message", "context "+name+": "+msg)
		return eventJSON(e.Type, obj), true
	case "BOOKMARK":
		return m.bookmark(i, obj), false
	}
	m.at[name] = gjson.GetBytes(obj, "metadata.resourceVersion").String()
	rv := m.at.String()
	if gjson.GetBytes(obj, "kind").String() != "Table" {
		return eventJSON(e.Type, annotate(obj, rv, name)), false
	}
	obj, _ = sjson.SetBytes(obj, "metadata.resourceVersion", rv)
	obj, _ = sjson.SetRawBytes(obj, "columnDefinitions", []byte(withContextColumn(gjson.GetBytes(obj, "columnDefinitions").Raw)))
	var rows bytes.Buffer
	rows.WriteByte('[')
	gjson.GetBytes(obj, "rows").ForEach(func(k, r gjson.Result) bool {
		if k.Int() > 0 {
			rows.WriteByte(',')
		}
		rows.Write(row([]byte(r.Raw), rv, name))
		return true
	})
	rows.WriteByte(']')
	obj, _ = sjson.SetRawBytes(obj, "rows", rows.Bytes())
	return eventJSON(e.Type, obj), false
}

// bookmark is the view's bookmark for the i-th cluster's: its position
// moved; while a streaming list's initial events have not ended in every
// cluster, none but the one that says they all have.
func (m *merger) bookmark(i int, obj []byte) []byte {
	m.at[m.clusters[i].Name] = gjson.GetBytes(obj, "metadata.resourceVersion").String()
	endsInitial := gjson.GetBytes(obj, "metadata.annotations."+gjson.Escape(metav1.InitialEventsAnnotationKey)).String() == "true"
	if m.initial {
		if endsInitial {
			m.ended[i] = true
		}
		for _, ended := range m.ended {
			if !ended {
				return nil
			}
		}
		m.initial = false
	} else if endsInitial {
		obj, _ = sjson.DeleteBytes(obj, "metadata.annotations."+gjson.Escape(metav1.InitialEventsAnnotationKey))
	}
	obj, _ = sjson.SetBytes(obj, "metadata.resourceVersion", m.at.String())
	return eventJSON("BOOKMARK", obj)
}

// eventJSON is one event on the wire, a line.
func eventJSON(typ string, obj []byte) []byte {
	out := make([]byte, 0, len(obj)+32)
	out = append(out, `{"type":`...)
	out = append(out, quote(typ)...)
	out = append(out, `,"object":`...)
	out = append(out, obj...)
	return append(out, "}\n"...)
}
