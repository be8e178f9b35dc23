package output

import (
	"fmt"

	"github.com/tidwall/sjson"
)

// QuietJSON is an object's JSON without the noise UnifiedDiff leaves out
// (resourceVersion, managedFields, generations): what a page that draws
// the same diffs itself (timeline --html) embeds.
func QuietJSON(raw []byte) ([]byte, error) {
	out := raw
	var err error
	for _, path := range noisePaths {
		if out, err = sjson.DeleteBytes(out, path); err != nil {
			return nil, fmt.Errorf("leaving %s out: %w", path, err)
		}
	}
	return out, nil
}
