package output

import "slices"

// NoisePaths are the fields UnifiedDiff leaves out (resourceVersion,
// managedFields, generations), as gjson paths: what a page that draws the
// same diffs itself (timeline --html) leaves out of the objects it embeds.
func NoisePaths() []string { return slices.Clone(noisePaths) }
