// Package version holds what the build stamps into the binary with
// -ldflags "-X github.com/kubectl-reflect/kubectl-reflect/internal/version.Version=v1.2.3 ...".
package version

import "runtime/debug"

// Set at build time.
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// Info is the binary's version information.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"buildDate"`
	GoVersion string `json:"goVersion"`
}

// Get returns the stamped version, falling back to the module version when
// built with go install.
func Get() Info {
	info := Info{Version: Version, Commit: Commit, BuildDate: Date}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
	}
	if info.Version == "" {
		info.Version = "v0.0.0-dev"
	}
	return info
}
