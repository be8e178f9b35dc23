package merge

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// positions reads the resourceVersion of r's query: nil when it names no
// position (unset, "0"), else one for every cluster; a refusal is written
// to w (400 for what is no composite resourceVersion, 410 for one that
// lacks a cluster: its clients start again from a list, as after a 410 of
// one server).
func (h *Handler) positions(w http.ResponseWriter, r *http.Request) (Version, bool) {
	rv := r.URL.Query().Get("resourceVersion")
	if isUnset(rv) {
		return nil, true
	}
	v, err := ParseVersion(rv)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return nil, false
	}
	for _, c := range h.clusters {
		if _, ok := v[c.Name]; !ok {
			writeStatus(w, http.StatusGone, metav1.StatusReasonExpired,
				"too old resource version: "+rv+" has no position in context "+c.Name)
			return nil, false
		}
	}
	return v, true
}

// query is r's query for cluster c: its position in v (when set), without
// paging (every cluster's list is whole: a server may ignore limit).
func query(r *http.Request, v Version) func(Cluster) url.Values {
	return func(c Cluster) url.Values {
		q := r.URL.Query()
		q.Del("limit")
		q.Del("continue")
		if v != nil {
			q.Set("resourceVersion", v[c.Name])
		}
		return q
	}
}

// get answers a GET of one object: the first cluster's (in their order)
// that has it; each is asked at once.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	v, ok := h.positions(w, r)
	if !ok {
		return
	}
	answers := h.fetch(r, query(r, v))
	for i, a := range answers {
		if a.err != nil || a.code != http.StatusOK && a.code != http.StatusNotFound {
			writeClusterError(w, h.clusters[i], a)
			return
		}
	}
	for i, a := range answers {
		if a.code == http.StatusOK {
			writeJSON(w, a.contentType, annotate(a.body, "", h.clusters[i].Name))
			return
		}
	}
	w.Header().Set("Content-Type", "application/json") // found in none: the first's 404
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(answers[0].body)
}

// list answers a LIST: every cluster's items (or Table rows, a Context
// column first) in the clusters' order, the resourceVersion a position in
// each.
func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("continue") != "" {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "the merged view gives no continue token: its lists are whole")
		return
	}
	v, ok := h.positions(w, r)
	if !ok {
		return
	}
	answers := h.fetch(r, query(r, v))
	at := Version{}
	for i, a := range answers {
		if a.err != nil || a.code != http.StatusOK {
			writeClusterError(w, h.clusters[i], a)
			return
		}
		at[h.clusters[i].Name] = gjson.GetBytes(a.body, "metadata.resourceVersion").String()
	}
	first := answers[0].body
	table := gjson.GetBytes(first, "kind").String() == "Table"
	var out bytes.Buffer
	out.WriteString(`{"kind":` + gjson.GetBytes(first, "kind").Raw + `,"apiVersion":` + gjson.GetBytes(first, "apiVersion").Raw)
	out.WriteString(`,"metadata":{"resourceVersion":"` + at.String() + `"}`)
	items := "items"
	if table {
		items = "rows"
		out.WriteString(`,"columnDefinitions":` + withContextColumn(gjson.GetBytes(first, "columnDefinitions").Raw))
	}
	out.WriteString(`,"` + items + `":[`)
	n := 0
	for i, a := range answers {
		name := h.clusters[i].Name
		gjson.GetBytes(a.body, items).ForEach(func(_, item gjson.Result) bool {
			if n++; n > 1 {
				out.WriteByte(',')
			}
			if table {
				out.Write(row([]byte(item.Raw), "", name))
			} else {
				out.Write(annotate([]byte(item.Raw), "", name))
			}
			return true
		})
	}
	out.WriteString("]}\n")
	writeJSON(w, answers[0].contentType, out.Bytes())
}

// annotate is object raw with its cluster's annotation and, unless rv is
// "", rv as its resourceVersion.
func annotate(raw []byte, rv, cluster string) []byte {
	if rv != "" {
		raw, _ = sjson.SetBytes(raw, "metadata.resourceVersion", rv)
	}
	out, err := sjson.SetBytes(raw, "metadata.annotations."+gjson.Escape(ContextAnnotation), cluster)
	if err != nil {
		return raw
	}
	return out
}

// contextColumn is the column a Table of the view has first.
const contextColumn = `{"name":"Context","type":"string","format":"","description":"The kubeconfig context of the object's cluster.","priority":0}`

// withContextColumn is columns (a JSON array) with the Context column
// first; null stays null (a watch's Tables after the first).
func withContextColumn(columns string) string {
	switch columns {
	case "", "null":
		return "null"
	case "[]":
		return "[" + contextColumn + "]"
	}
	return "[" + contextColumn + "," + columns[1:]
}

// row is a Table row with cluster's name as its first cell and its object
// annotated (rv as its resourceVersion unless "").
func row(raw []byte, rv, cluster string) []byte {
	cells := gjson.GetBytes(raw, "cells").Raw
	quoted := quote(cluster)
	if len(cells) < 2 || cells == "[]" {
		cells = "[" + quoted + "]"
	} else {
		cells = "[" + quoted + "," + cells[1:]
	}
	out, err := sjson.SetRawBytes(raw, "cells", []byte(cells))
	if err != nil {
		return raw
	}
	if obj := gjson.GetBytes(out, "object"); obj.IsObject() {
		out, _ = sjson.SetRawBytes(out, "object", annotate([]byte(obj.Raw), rv, cluster))
	}
	return out
}

// quote is s as a JSON string.
func quote(s string) string {
	raw, _ := json.Marshal(s) // a string always marshals
	return string(raw)
}

// writeJSON writes a 200 answer of body.
func writeJSON(w http.ResponseWriter, contentType string, body []byte) {
	if contentType == "" {
		contentType = "application/json"
	}
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(body)
}
