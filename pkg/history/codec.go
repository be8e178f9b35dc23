package history

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
// keyframe) and TestEditedConfigMapSize (a thousand such edits, the
// issue's case, on disk per revision).
const (
	kindKeyframe byte = 'k' // s2 block
	kindDelta    byte = 'd' // s2 block, dictionary: the previous revision's JSON
	maxChain          = 32
)

// errCorruptBlob is a stored object that does not decode.
var errCorruptBlob = errors.New("stored object does not decode")

// chainHead is an object's latest revision as the writer keeps it to
// encode the next one against.
type chainHead struct {
	frame uint64 // the resourceVersion of the chain's keyframe
	depth int    // revisions in the chain
	json  []byte // the latest revision's
}

func encodeKeyframe(doc []byte) []byte {
	return append([]byte{kindKeyframe}, s2.EncodeBetter(nil, doc)...)
}

// dictionary returns doc as an s2 dictionary, nil when it cannot be one.
func dictionary(doc []byte) *s2.Dict {
	if len(doc) < s2.MinDictSize || len(doc) > s2.MaxDictSize {
		return nil
	}
	return s2.MakeDictManual(doc, 0)
}

// encode returns doc's blob and its base (0: a keyframe), and the head of
// its object's chain after it.
func encode(head *chainHead, rv uint64, doc []byte) (blob []byte, base uint64, next *chainHead) {
	if head != nil && head.depth < maxChain {
		if delta, ok := encodeDelta(head.json, doc); ok && len(delta)*2 <= len(doc) {
			return delta, head.frame, &chainHead{frame: head.frame, depth: head.depth + 1, json: doc}
		}
	}
	return encodeKeyframe(doc), 0, &chainHead{frame: rv, depth: 1, json: doc}
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

// decode returns the JSON of blob; prev is the JSON of the revision before
// it when it is a delta.
func decode(blob, prev []byte) ([]byte, error) {
	if len(blob) == 0 {
		return nil, errCorruptBlob
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
			return nil, errCorruptBlob
		}
		doc, err = dict.Decode(nil, blob[1:])
	default:
		return nil, fmt.Errorf("%w: kind %q", errCorruptBlob, blob[0])
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCorruptBlob, err)
	}
	return doc, nil
}

// decodeChain decodes the blobs of a chain, keyframe first, and returns
// the last one's JSON.
func decodeChain(blobs [][]byte) ([]byte, error) {
	var doc []byte
	for i, blob := range blobs {
		if (i == 0) != (len(blob) > 0 && blob[0] == kindKeyframe) {
			return nil, fmt.Errorf("%w: a chain without its keyframe", errCorruptBlob)
		}
		var err error
		if doc, err = decode(blob, doc); err != nil {
			return nil, err
		}
	}
	return doc, nil
}
