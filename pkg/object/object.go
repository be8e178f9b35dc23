package object

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unique"
	"unsafe"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Object is one API object. It is immutable once decoded: share it freely,
// never write to Raw.
type Object struct {
	Namespace       string
	Name            string
	UID             string
	ResourceVersion string
	// Raw is the object's JSON, pruned as Decode was told.
	Raw []byte
	// Cells is the JSON array of the server's printer cells for this object
	// (one per column of the resource's Table), or nil.
	Cells []byte
}

// GetNamespace, GetName and GetResourceVersion let stores key and compare
// objects without knowing this type.
func (o *Object) GetNamespace() string       { return o.Namespace }
func (o *Object) GetName() string            { return o.Name }
func (o *Object) GetResourceVersion() string { return o.ResourceVersion }

// Unstructured decodes Raw for printers that need a runtime.Object.
func (o *Object) Unstructured() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(o.Raw); err != nil {
		return nil, fmt.Errorf("decoding %s/%s: %w", o.Namespace, o.Name, err)
	}
	return u, nil
}

// Prune says which fields Decode drops.
type Prune struct {
	// ManagedFields drops metadata.managedFields.
	ManagedFields bool
	// LastApplied drops the kubectl.kubernetes.io/last-applied-configuration
	// annotation.
	LastApplied bool
}

const (
	managedFieldsPath = "metadata.managedFields"
	lastAppliedPath   = `metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration`
)

var metadataPaths = []string{"metadata.namespace", "metadata.name", "metadata.uid", "metadata.resourceVersion"}

// Decode reads an object's JSON. raw must not be changed afterwards; Decode
// keeps it (or a pruned copy) as Raw.
func Decode(raw []byte, prune Prune) (*Object, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("object is not a JSON object: %.40q", raw)
	}
	var err error
	if raw, err = pruneFields(raw, prune); err != nil {
		return nil, err
	}
	// UID and resourceVersion point into raw (immutable from here on)
	// instead of being copied. Namespace and name become map keys in
	// stores, where a string into raw would keep this version's JSON alive
	// after the object is replaced: the name is copied and the namespace
	// interned (objects share a few namespaces).
	md := gjson.GetMany(unsafe.String(unsafe.SliceData(raw), len(raw)), metadataPaths...)
	return &Object{
		Namespace:       unique.Make(md[0].Str).Value(),
		Name:            strings.Clone(md[1].Str),
		UID:             md[2].Str,
		ResourceVersion: md[3].Str,
		Raw:             raw,
	}, nil
}

func pruneFields(raw []byte, prune Prune) ([]byte, error) {
	var err error
	if prune.ManagedFields && gjson.GetBytes(raw, managedFieldsPath).Exists() {
		if raw, err = sjson.DeleteBytes(raw, managedFieldsPath); err != nil {
			return nil, fmt.Errorf("pruning managedFields: %w", err)
		}
	}
	if prune.LastApplied && gjson.GetBytes(raw, lastAppliedPath).Exists() {
		if raw, err = sjson.DeleteBytes(raw, lastAppliedPath); err != nil {
			return nil, fmt.Errorf("pruning last-applied-configuration: %w", err)
		}
	}
	return raw, nil
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
