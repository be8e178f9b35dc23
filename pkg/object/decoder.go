package object

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unique"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Prune says which fields a Decoder drops.
type Prune struct {
	// ManagedFields drops metadata.managedFields.
	ManagedFields bool
	// LastApplied drops the kubectl.kubernetes.io/last-applied-configuration
	// annotation.
	LastApplied bool
	// MetadataOnlyUnless, when not empty, holds strings separated by
	// newlines: an object whose JSON contains none of them keeps only its
	// apiVersion, kind and metadata, without managedFields and
	// last-applied: that it exists and who owns it, not what it holds. A
	// controller lists what marks the objects it manages (its owner kind,
	// its field manager, as they appear in JSON, quotes included), so that
	// everybody else's objects of the kind cost a fraction of the memory.
	// A string found by chance keeps an object whole, which costs only
	// memory.
	MetadataOnlyUnless string
}

// Meet is what both p and q prune: a store pruned by it holds every field
// a consumer of either reads. Two MetadataOnlyUnless lists unite: an
// object either consumer manages stays whole.
func (p Prune) Meet(q Prune) Prune {
	m := Prune{ManagedFields: p.ManagedFields && q.ManagedFields, LastApplied: p.LastApplied && q.LastApplied}
	if p.MetadataOnlyUnless != "" && q.MetadataOnlyUnless != "" {
		markers := p.markers()
		for _, marker := range q.markers() {
			if !slices.Contains(markers, marker) {
				markers = append(markers, marker)
			}
		}
		m.MetadataOnlyUnless = strings.Join(markers, "\n")
	}
	return m
}

// DecoderOptions say how a Decoder turns JSON into objects.
type DecoderOptions struct {
	Prune Prune
	// APIVersion and Kind are added to objects that come without them (the
	// items of a list); empty adds nothing.
	APIVersion, Kind string
	// Pack keeps each object's JSON compressed with a codec the Decoder
	// learns from the first objects it sees (see pack.go). It costs a few
	// microseconds per object decoded and per JSON read back, and saves a
	// third of the memory of a ConfigMap of random text, more of most
	// objects. Long-lived stores want it; a one-shot listing does not.
	Pack bool
}

// Known looks up the object a store already holds under namespace/name.
type Known func(namespace, name string) (*Object, bool)

// A Decoder turns JSON objects into Objects. It copies what it keeps, so
// the caller may reuse its buffers. It is safe for concurrent use.
type Decoder struct {
	opts     DecoderOptions
	typeMeta string   // `"apiVersion":"...","kind":"..."`, or ""
	markers  []string // opts.Prune.MetadataOnlyUnless, split

	mu      sync.Mutex // guards scratch and packer
	scratch []byte
	packer  packer
}

// NewDecoder returns a Decoder.
func NewDecoder(opts DecoderOptions) *Decoder {
	d := &Decoder{opts: opts, markers: opts.Prune.markers()}
	if opts.Kind != "" {
		d.typeMeta = `"apiVersion":"` + opts.APIVersion + `","kind":"` + opts.Kind + `"`
	}
	return d
}

// Fork returns a Decoder with d's options and a packer of its own, for
// another goroutine: each Decoder decodes one object at a time.
func (d *Decoder) Fork() *Decoder { return NewDecoder(d.opts) }

// DecodeFunc decodes one object from its JSON and printer cells (nil when
// none) as Decoder.Decode does with nothing known; it keeps neither.
type DecodeFunc func(raw, cells []byte) (*Object, error)

// Forks returns n DecodeFuncs of forks of d, for n goroutines at once.
func (d *Decoder) Forks(n int) []DecodeFunc {
	out := make([]DecodeFunc, n)
	for i := range out {
		f := d.Fork()
		out[i] = func(raw, cells []byte) (*Object, error) { return f.Decode(raw, cells, nil) }
	}
	return out
}

// Decode is a Decoder without packing or type metadata.
func Decode(raw []byte, prune Prune) (*Object, error) {
	return NewDecoder(DecoderOptions{Prune: prune}).Decode(raw, nil, nil)
}

// identity reads what Decode keeps of an object's metadata, and whether
// the object names its kind, without allocating (gjson.GetMany would),
// and without reading the rest of the metadata once it has them.
func identity(doc string) (ns, name, uid, rv string, hasKind bool) {
	hasKind = gjson.Get(doc, "kind").Exists()
	md := gjson.Get(doc, "metadata")
	if !md.IsObject() {
		return "", "", "", "", hasKind
	}
	found := 0
	md.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "namespace":
			ns, found = v.Str, found|1
		case "name":
			name, found = v.Str, found|2
		case "uid":
			uid, found = v.Str, found|4
		case "resourceVersion":
			rv, found = v.Str, found|8
		}
		return found != 15 // the API server writes them first: managedFields are not read
	})
	return ns, name, uid, rv, hasKind
}

// Decode reads one JSON object, and cells, the JSON array of its printer
// cells when the server sent a Table. raw must be valid JSON, as every value
// pkg/kube reads is once it is whole: Decode does not validate it again (a
// second pass over every object), and what it makes of invalid JSON is
// unspecified, though it never panics. When known holds an object of the same
// namespace, name and resourceVersion (and cells or none, as this one),
// Decode returns that one: a relist of unchanged objects then allocates
// nothing.
func (d *Decoder) Decode(raw, cells []byte, known Known) (*Object, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("object is not a JSON object: %.40q", raw)
	}
	ns, name, uid, rv, hasKind := identity(unsafe.String(unsafe.SliceData(raw), len(raw)))
	if known != nil && rv != "" {
		if old, ok := known(ns, name); ok && old.ResourceVersion == rv && (old.Cells == nil) == (cells == nil) {
			return old, nil
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	doc := d.scratch[:0]
	if d.typeMeta != "" && !hasKind {
		doc = withTypeMeta(doc, raw, d.typeMeta)
	} else {
		doc = append(doc, raw...)
	}
	doc, err := prune(doc, d.opts.Prune, d.markers)
	if err != nil {
		return nil, err
	}
	d.scratch = doc[:0]
	// One allocation holds name, uid and resourceVersion, so that a store's
	// keys pin nothing else; the namespace is interned (objects share few).
	// Not name + uid + rv: with uid and rv empty, Go returns name itself,
	// which points into raw, the caller's buffer.
	var b strings.Builder
	b.Grow(len(name) + len(uid) + len(rv))
	b.WriteString(name)
	b.WriteString(uid)
	b.WriteString(rv)
	meta := b.String()
	o := &Object{
		Namespace:       unique.Make(ns).Value(),
		Name:            meta[:len(name)],
		UID:             meta[len(name) : len(name)+len(uid)],
		ResourceVersion: meta[len(name)+len(uid):],
	}
	if cells != nil {
		o.Cells = bytes.Clone(cells)
	}
	if d.opts.Pack {
		o.data, o.codec = d.packer.pack(doc)
	} else {
		o.data = string(doc)
	}
	return o, nil
}

// withTypeMeta appends raw to dst with typeMeta as its first members.
func withTypeMeta(dst, raw []byte, typeMeta string) []byte {
	body := bytes.TrimLeft(raw[1:], " \t\r\n")
	dst = append(append(dst, '{'), typeMeta...)
	if len(body) > 0 && body[0] != '}' {
		dst = append(dst, ',')
	}
	return append(dst, body...)
}
