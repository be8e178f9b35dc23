package object

import (
	"encoding/json"
	"fmt"
	"unsafe"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// DecodeCells returns the printer cells of o, or nil when it has none.
func (o *Object) DecodeCells() ([]any, error) {
	if o.Cells == nil {
		return nil, nil
	}
	var cells []any
	if err := json.Unmarshal(o.Cells, &cells); err != nil {
		return nil, fmt.Errorf("decoding printer cells of %s/%s: %w", o.Namespace, o.Name, err)
	}
	return cells, nil
}

// FromJSON returns an object holding raw exactly as it is: nothing is
// decoded, pruned or packed. Decode is the way to read an object; this is
// for printers' tests and for objects built in memory.
func FromJSON(raw []byte) *Object { return &Object{data: string(raw)} }
