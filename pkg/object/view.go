package object

import (
	"bytes"
	"unsafe"
)

// View is raw, the JSON of the object namespace/name, and cells, its
// printer cells or nil, as an Object without copying or reading them: for
// a reader that looks at the object only while raw and cells are
// unchanged (a buffer it reuses), and keeps what it needs of it (Lean)
// rather than the view. It has no uid or resourceVersion.
func View(namespace, name string, raw, cells []byte) *Object {
	return &Object{Namespace: namespace, Name: name, Cells: cells, data: unsafe.String(unsafe.SliceData(raw), len(raw))}
}

// Lean is o without its JSON (JSON returns none), with cells, copied, as
// its cells: what a table of the server's columns prints of an object,
// kept of a View for a fraction of its bytes.
func (o *Object) Lean(cells []byte) *Object {
	return &Object{Namespace: o.Namespace, Name: o.Name, UID: o.UID, ResourceVersion: o.ResourceVersion, Cells: bytes.Clone(cells)}
}
