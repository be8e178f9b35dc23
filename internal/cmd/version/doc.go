// Package version is `kubectl reflect version`: the build's version,
// commit and date (internal/version) as text, JSON or YAML.
package version
