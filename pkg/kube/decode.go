package kube

import (
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
	decoder *object.Decoder
	// known is the lookup that lets unchanged objects be reused (see
	// Client.Reuse); empty reuses nothing.
	known *atomic.Pointer[object.Known]
}

func newDecoding(r Resource, s Scope) decoding {
	return decoding{
		decoder: object.NewDecoder(object.DecoderOptions{
			Prune: s.Prune, APIVersion: r.GVR.GroupVersion().String(), Kind: r.Kind, Pack: s.Pack,
		}),
		known: new(atomic.Pointer[object.Known]),
	}
}

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

// decodePage reads a LIST answer: a v1 List of any kind, or a Table whose
// rows carry the objects.
func decodePage(body []byte, d decoding) (watch.Page[*object.Object], []object.Column, error) {
	doc := view(body)
	if !gjson.Valid(doc) || !gjson.Parse(doc).IsObject() {
		return watch.Page[*object.Object]{}, nil, fmt.Errorf("the list is not a JSON object: %.60q", doc)
	}
	head := gjson.GetMany(doc, "kind", "metadata.resourceVersion", "metadata.continue")
	page := watch.Page[*object.Object]{ResourceVersion: strings.Clone(head[1].String()), Continue: strings.Clone(head[2].String())}
	var cols []object.Column
	var err error
	if head[0].Str == "Table" {
		if cols, err = decodeColumns(gjson.Get(doc, "columnDefinitions")); err != nil {
			return page, nil, err
		}
		err = eachOf(gjson.Get(doc, "rows"), func(row gjson.Result) error {
			obj, err := decodeItem(row.Get("object").Raw, row.Get("cells"), d)
			page.Items = append(page.Items, obj)
			return err
		})
	} else {
		err = eachOf(gjson.Get(doc, "items"), func(item gjson.Result) error {
			obj, err := decodeItem(item.Raw, gjson.Result{}, d)
			page.Items = append(page.Items, obj)
			return err
		})
	}
	if err != nil {
		return page, nil, fmt.Errorf("decoding list: %w", err)
	}
	return page, cols, nil
}

// eachOf calls fn for each element of an array; null or missing is empty,
// anything else an error.
func eachOf(list gjson.Result, fn func(gjson.Result) error) error {
	if !list.Exists() || list.Type == gjson.Null {
		return nil
	}
	if !list.IsArray() {
		return fmt.Errorf("expected a JSON array, got %.40q", list.Raw)
	}
	var err error
	list.ForEach(func(_, v gjson.Result) bool {
		err = fn(v)
		return err == nil
	})
	return err
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
