package merge

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Version is a composite resourceVersion: the resourceVersion of each
// cluster, by name, a position in every stream at once. On the wire it is
// the base64 (URL alphabet, no padding) of its JSON, an object whose keys
// are sorted, so that one position has one spelling.
type Version map[string]string

// String is the wire form.
func (v Version) String() string {
	raw, _ := json.Marshal(map[string]string(v)) // a map of strings always marshals
	return base64.RawURLEncoding.EncodeToString(raw)
}

// clone is a copy of v to change.
func (v Version) clone() Version {
	out := make(Version, len(v))
	for k, rv := range v {
		out[k] = rv
	}
	return out
}

// ParseVersion reads a composite resourceVersion, refusing anything that
// is not one (a cluster's own resourceVersion among them).
func ParseVersion(s string) (Version, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	var v Version
	if err == nil {
		err = json.Unmarshal(raw, &v)
	}
	if err != nil || len(v) == 0 {
		return nil, fmt.Errorf("resourceVersion %q is not one of the merged view's (a position in each cluster)", s)
	}
	return v, nil
}

// isUnset says whether rv asks for no position in particular: "" (the
// latest) or "0" (any), which every cluster is asked as is.
func isUnset(rv string) bool { return rv == "" || rv == "0" }
