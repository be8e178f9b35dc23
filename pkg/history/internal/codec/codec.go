package codec

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// How a revision's object is kept. Each object's revisions form chains: a
// keyframe (its JSON as an s2 block) then deltas, each the JSON of its
// revision as an s2 block whose dictionary is the JSON of the revision
// just before it, so that a small edit of a large object costs the bytes
// of the edit and a few back-references. A delta's base column is the
// resourceVersion of its chain's keyframe: every revision of the object
// from there to it is the chain, read in one range and decoded in order.
// A chain is at most maxChain revisions long, so that any revision decodes
// with at most that many block decodes (a microsecond each for 1 KiB); a
// revision is also a keyframe when it is its object's first, when the
// revision before it is too large to be a dictionary, or when its delta
// would be more than half its JSON (the object was rewritten).
//
// The measurements: BenchmarkEncodeDelta (a ConfigMap of 1 KiB of random
// text edited in a few letters is about 20 bytes as a delta, 1,290 as a
// keyframe) and pkg/history's TestEditedConfigMapSize (a thousand such edits, the
// issue's case, on disk per revision).
const (
	kindKeyframe byte = 'k' // s2 block
	kindDelta    byte = 'd' // s2 block, dictionary: the previous revision's JSON
	// MaxChain is how many revisions a chain holds at most.
	MaxChain = 32
	// maxDecoded bounds what one block may claim to decode to, so that a
	// damaged block fails instead of allocating up to the 4 GiB its header
	// can claim. No object or checkpoint part comes near it: the API
	// server refuses objects over a few MiB, and a part is PartSize plus
	// one entry.
	maxDecoded = 256 << 20
)

// ErrCorrupt is a stored object or checkpoint part that does not decode.
var ErrCorrupt = errors.New("stored object does not decode")

// Head is an object's latest revision as the writer keeps it to encode
// the next one against.
type Head struct {
	Frame uint64 // the resourceVersion of the chain's keyframe
	Depth int    // revisions in the chain
	JSON  []byte // the latest revision's
}

// EncodeKeyframe returns doc's blob as a keyframe: it decodes alone.
func EncodeKeyframe(doc []byte) []byte {
	return append([]byte{kindKeyframe}, s2.EncodeBetter(nil, doc)...)
}

// dictionary returns doc as an s2 dictionary, nil when it cannot be one.
func dictionary(doc []byte) *s2.Dict {
	if len(doc) < s2.MinDictSize || len(doc) > s2.MaxDictSize {
		return nil
	}
	return s2.MakeDictManual(doc, 0)
}

// Encode returns doc's blob and its base (0: a keyframe), and the head of
// its object's chain after it.
func Encode(head *Head, rv uint64, doc []byte) (blob []byte, base uint64, next *Head) {
	if head != nil && head.Depth < MaxChain {
		if delta, ok := encodeDelta(head.JSON, doc); ok && len(delta)*2 <= len(doc) {
			return delta, head.Frame, &Head{Frame: head.Frame, Depth: head.Depth + 1, JSON: doc}
		}
	}
	return EncodeKeyframe(doc), 0, &Head{Frame: rv, Depth: 1, JSON: doc}
}

// encodeDelta returns doc's blob as a delta of prev (appendDelta; s2's
// encoder where that does not apply), false when prev cannot be a
// dictionary.
func encodeDelta(prev, doc []byte) ([]byte, bool) {
	if delta, ok := appendDelta([]byte{kindDelta}, prev, doc); ok {
		return delta, true
	}
	dict := dictionary(prev)
	if dict == nil {
		return nil, false
	}
	return append([]byte{kindDelta}, dict.Encode(nil, doc)...), true
}

// Decode returns the JSON of blob; prev is the JSON of the revision before
// it when it is a delta.
func Decode(blob, prev []byte) ([]byte, error) {
	if len(blob) == 0 {
		return nil, ErrCorrupt
	}
	if err := checkLen(blob[1:]); err != nil {
		return nil, err
	}
	var (
		doc []byte
		err error
	)
	switch blob[0] {
	case kindKeyframe:
		doc, err = s2.Decode(nil, blob[1:])
	case kindDelta:
		dict := dictionary(prev)
		if dict == nil {
			return nil, ErrCorrupt
		}
		doc, err = dict.Decode(nil, blob[1:])
	default:
		return nil, fmt.Errorf("%w: kind %q", ErrCorrupt, blob[0])
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return doc, nil
}

// checkLen fails for an s2 block that claims to decode to more than
// maxDecoded bytes.
func checkLen(block []byte) error {
	n, err := s2.DecodedLen(block)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	case n > maxDecoded:
		return fmt.Errorf("%w: a block of %d bytes", ErrCorrupt, n)
	}
	return nil
}

// DecodeChain decodes the blobs of a chain, keyframe first, and returns
// the last one's JSON.
func DecodeChain(blobs [][]byte) ([]byte, error) {
	var doc []byte
	for i, blob := range blobs {
		if (i == 0) != (len(blob) > 0 && blob[0] == kindKeyframe) {
			return nil, fmt.Errorf("%w: a chain without its keyframe", ErrCorrupt)
		}
		var err error
		if doc, err = Decode(blob, doc); err != nil {
			return nil, err
		}
	}
	return doc, nil
}
