package object

import (
	"fmt"
	"strconv"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Object is one API object. It is immutable once decoded: share it freely,
// never write to what JSON returns.
type Object struct {
	Namespace       string
	Name            string
	UID             string
	ResourceVersion string
	// Cells is the JSON array of the server's printer cells for this object
	// (one per column of the resource's Table), or nil.
	Cells []byte
	// data is the object's JSON, pruned as its Decoder was told; when codec
	// is set, that JSON packed by codec.
	data  string
	codec *codec
}

// GetNamespace, GetName and GetResourceVersion let stores key and compare
// objects without knowing this type.
func (o *Object) GetNamespace() string       { return o.Namespace }
func (o *Object) GetName() string            { return o.Name }
func (o *Object) GetResourceVersion() string { return o.ResourceVersion }

// JSON returns the object's JSON. The caller must not change it. It costs
// nothing for an object kept as JSON and unpacks a packed one into a new
// slice; a reader of many objects uses AppendJSON with one buffer instead.
func (o *Object) JSON() []byte {
	if o.codec != nil {
		return o.codec.unpack(nil, o.data)
	}
	return unsafe.Slice(unsafe.StringData(o.data), len(o.data))
}

// AppendJSON appends the object's JSON to dst.
func (o *Object) AppendJSON(dst []byte) []byte {
	if o.codec != nil {
		return o.codec.unpack(dst, o.data)
	}
	return append(dst, o.data...)
}

// Packed reports whether the object's JSON is kept packed, and the bytes it
// is kept in.
func (o *Object) Packed() (bool, int) { return o.codec != nil, len(o.data) }

// Unstructured decodes the JSON for printers that need a runtime.Object.
func (o *Object) Unstructured() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(o.JSON()); err != nil {
		return nil, fmt.Errorf("decoding %s/%s: %w", o.Namespace, o.Name, err)
	}
	return u, nil
}

// Column is one column of a resource's Table, as the server defines it.
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Format   string `json:"format"`
	Priority int32  `json:"priority"`
}

// DecodeCells returns the printer cells of o, or nil when it has none, as
// kubectl decodes them (k8s.io/apimachinery/pkg/util/json): strings, bools,
// nil, an integer as an int64 (a float64 only beyond int64's range), any
// other number as a float64, and maps or slices, alike inside, for the rare
// cell that is an object or an array. kubectl prints an int64 2000000000 so;
// a float64 would print as 2e+09. Strings, numbers, bools and nulls, nearly
// every cell, are read with gjson: about a quarter of the time and a third
// of the allocations of a JSON decoder for a ConfigMap's row
// (BenchmarkDecodeCells), which a get of 20,000 objects pays per row.
func (o *Object) DecodeCells() ([]any, error) {
	if o.Cells == nil {
		return nil, nil
	}
	// A view, not a copy: the strings of the cells share Cells, which never
	// changes (an Object is immutable).
	raw := unsafe.String(unsafe.SliceData(o.Cells), len(o.Cells))
	arr := gjson.Parse(raw)
	if !arr.IsArray() || !gjson.Valid(raw) {
		return o.decodeCellsJSON() // for the decoder's error
	}
	cells := make([]any, 0, 4)
	var err error
	arr.ForEach(func(_, v gjson.Result) bool {
		switch v.Type {
		case gjson.String:
			cells = append(cells, v.Str)
		case gjson.Number:
			if i, perr := strconv.ParseInt(v.Raw, 10, 64); perr == nil {
				cells = append(cells, i)
				break
			}
			f, perr := strconv.ParseFloat(v.Raw, 64)
			if perr != nil { // out of float64's range: the decoder's error
				_, err = o.decodeCellsJSON()
				return false
			}
			cells = append(cells, f)
		case gjson.True, gjson.False:
			cells = append(cells, v.Bool())
		case gjson.Null:
			cells = append(cells, nil)
		default: // an object or an array
			var c any
			if err = utiljson.Unmarshal([]byte(v.Raw), &c); err != nil {
				err = fmt.Errorf("decoding printer cells of %s/%s: %w", o.Namespace, o.Name, err)
				return false
			}
			cells = append(cells, c)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return cells, nil
}

// decodeCellsJSON is DecodeCells by kubectl's JSON decoder.
func (o *Object) decodeCellsJSON() ([]any, error) {
	var cells []any
	if err := utiljson.Unmarshal(o.Cells, &cells); err != nil {
		return nil, fmt.Errorf("decoding printer cells of %s/%s: %w", o.Namespace, o.Name, err)
	}
	return cells, nil
}

// FromJSON returns an object holding raw exactly as it is: nothing is
// decoded, pruned or packed. Decode is the way to read an object; this is
// for printers' tests and for objects built in memory.
func FromJSON(raw []byte) *Object { return &Object{data: string(raw)} }

// WithAnnotation is o with the annotation key set to value in its JSON
// (a new object; o is unchanged), its cells and identity kept.
func (o *Object) WithAnnotation(key, value string) (*Object, error) {
	raw, err := sjson.SetBytes(o.AppendJSON(nil), "metadata.annotations."+gjson.Escape(key), value)
	if err != nil {
		return nil, fmt.Errorf("annotating %s/%s: %w", o.Namespace, o.Name, err)
	}
	return &Object{Namespace: o.Namespace, Name: o.Name, UID: o.UID, ResourceVersion: o.ResourceVersion, Cells: o.Cells, data: string(raw)}, nil
}
