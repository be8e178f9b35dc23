package serve

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// encoder writes the objects of one resource in one form.
type encoder struct {
	res  kube.Resource
	form form
	// Table form.
	columns       []object.Column
	times         []timeColumn // the columns computed again at each answer (Age, ...)
	includeObject string       // None, Metadata (the default) or Object
	now           time.Time
}

// defaultColumns are a Table's columns when the server sent none.
var defaultColumns = []object.Column{{Name: "Name", Type: "string", Format: "name"}, {Name: "Age", Type: "date"}}

func newEncoder(c *cached, f form, includeObject string, now time.Time) *encoder {
	e := &encoder{res: c.res, form: f, includeObject: includeObject, now: now}
	if f == formTable {
		e.columns = c.Source.Columns()
		if e.columns == nil {
			e.columns = defaultColumns
		}
		names := make([]string, len(e.columns))
		for i, c := range e.columns {
			names[i] = c.Name
		}
		e.times = timeColumns(e.res.GVR.GroupResource(), names, c.DateColumns)
	}
	return e
}

// includeObject reads the request's includeObject, checked as the API
// server does; when it is not one the API knows, it answers 400 and ok is
// false.
func includeObject(w http.ResponseWriter, r *http.Request) (v string, ok bool) {
	switch v = r.URL.Query().Get("includeObject"); v {
	case "", "None", "Metadata", "Object":
		return v, true
	default:
		writeStatus(w, r, badRequest("invalid includeObject %q: want None, Metadata or Object", v))
		return v, false
	}
}

// appendObject appends o in e's form: the object itself, its metadata, or
// a Table row (a whole Table is appendTable's).
func (e *encoder) appendObject(dst []byte, o *object.Object) []byte {
	switch e.form {
	case formMetadata:
		return appendMetadata(dst, o)
	case formTable:
		return e.appendRow(dst, o)
	}
	return o.AppendJSON(dst)
}

// appendMetadata appends o as a PartialObjectMetadata.
func appendMetadata(dst []byte, o *object.Object) []byte {
	return appendPartial(dst, gjson.GetBytes(o.JSON(), "metadata"))
}

// appendPartial appends a PartialObjectMetadata of meta, an object's
// metadata.
func appendPartial(dst []byte, meta gjson.Result) []byte {
	dst = append(dst, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`...)
	raw := meta.Raw
	if raw == "" {
		raw = "{}"
	}
	return append(append(dst, raw...), '}')
}

// appendRow appends o's Table row: its cells, those of times (the Age, ...)
// computed now, and the object as includeObject asks.
func (e *encoder) appendRow(dst []byte, o *object.Object) []byte {
	raw := o.JSON() // unpacked once per row
	meta := gjson.GetBytes(raw, "metadata")
	dst = append(dst, `{"cells":`...)
	dst = append(dst, e.cells(o, raw, meta)...)
	switch e.includeObject {
	case "None":
	case "Object":
		dst = append(dst, `,"object":`...)
		dst = append(dst, raw...)
	default:
		dst = append(dst, `,"object":`...)
		dst = appendPartial(dst, meta)
	}
	return append(dst, '}')
}

// cells are o's printer cells with those of e.times computed now from
// raw, o's JSON, and meta, its metadata.
func (e *encoder) cells(o *object.Object, raw []byte, meta gjson.Result) []byte {
	return cellsAt(e.times, o, raw, meta, e.now)
}

// cellsAt are o's printer cells with those of times computed at now.
func cellsAt(times []timeColumn, o *object.Object, raw []byte, meta gjson.Result, now time.Time) []byte {
	cells := o.Cells
	if cells == nil {
		cells = mustJSON([]string{o.Name, ""})
	}
	cached := cells
	for _, c := range times {
		v, ok := c.cell(timedRow{obj: raw, meta: meta, cells: cached, path: c.path}, now)
		if !ok {
			continue
		}
		if out, err := sjson.SetBytes(cells, c.path, v); err == nil {
			cells = out
		}
	}
	return cells
}

// appendColumns appends the Table's columnDefinitions.
func (e *encoder) appendColumns(dst []byte) []byte {
	defs := make([]metav1.TableColumnDefinition, len(e.columns))
	for i, c := range e.columns {
		defs[i] = metav1.TableColumnDefinition{Name: c.Name, Type: c.Type, Format: c.Format, Priority: c.Priority}
	}
	return append(dst, mustJSON(defs)...)
}

// listHead is the start of a list of e's form up to its first item.
func (e *encoder) listHead(meta metav1.ListMeta) []byte {
	var b []byte
	switch e.form {
	case formTable:
		b = append(b, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":`...)
		b = append(b, mustJSON(meta)...)
		b = append(b, `,"columnDefinitions":`...)
		b = e.appendColumns(b)
		return append(b, `,"rows":[`...)
	case formMetadata:
		b = append(b, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":`...)
	default:
		b = append(b, `{"kind":`...)
		b = strconv.AppendQuote(b, e.res.Kind+"List")
		b = append(b, `,"apiVersion":`...)
		b = strconv.AppendQuote(b, e.res.GVR.GroupVersion().String())
		b = append(b, `,"metadata":`...)
	}
	b = append(b, mustJSON(meta)...)
	return append(b, `,"items":[`...)
}

// listTail ends what listHead started.
const listTail = "]}\n"

// appendTable appends a Table of the objects (a GET's, a watch event's);
// withColumns says whether it has its columnDefinitions (a watch sends them
// with its first event only, as the API server does).
func (e *encoder) appendTable(dst []byte, rv string, withColumns bool, objs ...*object.Object) []byte {
	dst = append(dst, `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":`...)
	dst = append(dst, mustJSON(metav1.ListMeta{ResourceVersion: rv})...)
	if withColumns {
		dst = append(dst, `,"columnDefinitions":`...)
		dst = e.appendColumns(dst)
	} else {
		dst = append(dst, `,"columnDefinitions":null`...)
	}
	dst = append(dst, `,"rows":[`...)
	for i, o := range objs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = e.appendRow(dst, o)
	}
	return append(dst, "]}"...)
}

// withResourceVersion is o with metadata.resourceVersion set to rv (the
// API server's deletion events carry the deletion's); o itself when it has
// it already.
func withResourceVersion(o *object.Object, rv string) *object.Object {
	if rv == "" || o.ResourceVersion == rv {
		return o
	}
	raw, err := sjson.SetBytes(o.AppendJSON(nil), "metadata.resourceVersion", rv)
	if err != nil {
		return o
	}
	out := object.FromJSON(raw)
	out.Namespace, out.Name, out.UID, out.ResourceVersion, out.Cells = o.Namespace, o.Name, o.UID, rv, o.Cells
	return out
}

// bookmark is a BOOKMARK event's object at rv: only its kind and
// resourceVersion, and the initial-events-end annotation when it ends a
// streaming list's initial events.
func (e *encoder) bookmark(rv string, initialEventsEnd bool) []byte {
	kind, apiVersion := e.res.Kind, e.res.GVR.GroupVersion().String()
	if e.form == formMetadata {
		kind, apiVersion = "PartialObjectMetadata", "meta.k8s.io/v1"
	}
	meta := map[string]any{"resourceVersion": rv, "creationTimestamp": nil}
	if initialEventsEnd {
		meta["annotations"] = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return mustJSON(map[string]any{"kind": kind, "apiVersion": apiVersion, "metadata": meta})
}

// IsTrue reads a boolean query parameter as the API server does.
func IsTrue(v string) bool { return isTrue(v) }

// isTrue reads a boolean query parameter as the API server does.
func isTrue(v string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	return err == nil && b
}
