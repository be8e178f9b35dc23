package kube

import (
	"encoding/json"
	"fmt"
	"strings"
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

// decodeItem copies one object out of a larger document and decodes it.
func decodeItem(raw string, cells gjson.Result, prune object.Prune) (*object.Object, error) {
	obj, err := object.Decode([]byte(raw), prune)
	if err != nil {
		return nil, err
	}
	if cells.Exists() {
		obj.Cells = []byte(cells.Raw)
	}
	return obj, nil
}

// decodePage reads a LIST answer: a v1 List of any kind, or a Table whose
// rows carry the objects.
func decodePage(body []byte, prune object.Prune) (watch.Page[*object.Object], []object.Column, error) {
	doc := view(body)
	head := gjson.GetMany(doc, "kind", "metadata.resourceVersion", "metadata.continue")
	page := watch.Page[*object.Object]{ResourceVersion: strings.Clone(head[1].String()), Continue: strings.Clone(head[2].String())}
	var cols []object.Column
	var err error
	if head[0].Str == "Table" {
		if cols, err = decodeColumns(gjson.Get(doc, "columnDefinitions")); err != nil {
			return page, nil, err
		}
		gjson.Get(doc, "rows").ForEach(func(_, row gjson.Result) bool {
			var obj *object.Object
			obj, err = decodeItem(row.Get("object").Raw, row.Get("cells"), prune)
			page.Items = append(page.Items, obj)
			return err == nil
		})
	} else {
		gjson.Get(doc, "items").ForEach(func(_, item gjson.Result) bool {
			var obj *object.Object
			obj, err = decodeItem(item.Raw, gjson.Result{}, prune)
			page.Items = append(page.Items, obj)
			return err == nil
		})
	}
	if err != nil {
		return page, nil, fmt.Errorf("decoding list: %w", err)
	}
	return page, cols, nil
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
