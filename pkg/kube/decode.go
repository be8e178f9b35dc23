package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// view reads b as a string without copying; b must not change while the
// string (or a gjson.Result from it) is in use.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// bytesOf reads s as bytes without copying; they must not be changed.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// decoding is how a client decodes objects.
type decoding struct {
	decoder *object.Decoder // the objects of LIST answers
	events  *object.Decoder // the objects of watch events: decoder, or one that does not pack (Shape.PackLists)
	// known is the lookup that lets unchanged objects be reused (see
	// Client.Reuse); empty reuses nothing.
	known *atomic.Pointer[object.Known]
}

// newDecoding decodes objects of r in shape s, reusing what known returns.
func newDecoding(r Resource, s Shape, known *atomic.Pointer[object.Known]) decoding {
	opts := object.DecoderOptions{Prune: s.Prune, APIVersion: r.GVR.GroupVersion().String(), Kind: r.Kind, Pack: s.Pack || s.PackLists}
	d := decoding{decoder: object.NewDecoder(opts), known: known}
	d.events = d.decoder
	if s.PackLists && !s.Pack {
		opts.Pack = false
		d.events = object.NewDecoder(opts)
	}
	return d
}

// forEvents is d as watch events decode their objects.
func (d decoding) forEvents() decoding { d.decoder = d.events; return d }

// decodeItem decodes one object of a larger document (copying it).
func decodeItem(raw string, cells gjson.Result, d decoding) (*object.Object, error) {
	if !strings.HasPrefix(raw, "{") {
		return nil, fmt.Errorf("object is not a JSON object: %.40q", raw)
	}
	var known object.Known
	if p := d.known.Load(); p != nil {
		known = *p
	}
	var cellsJSON []byte
	if cells.Exists() {
		cellsJSON = bytesOf(cells.Raw)
	}
	return d.decoder.Decode(bytesOf(raw), cellsJSON, known)
}

// decodePage reads a whole LIST answer (see decodeList).
func decodePage(body []byte, d decoding) (watch.Page[*object.Object], []object.Column, error) {
	return decodeList(bytes.NewReader(body), d)
}

func decodeColumns(defs gjson.Result) ([]object.Column, error) {
	if !defs.Exists() {
		return nil, nil
	}
	var cols []object.Column
	if err := json.Unmarshal([]byte(defs.Raw), &cols); err != nil {
		return nil, fmt.Errorf("decoding table columns: %w", err)
	}
	return cols, nil
}
