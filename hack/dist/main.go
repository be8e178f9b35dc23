// Command dist builds kubectl-reflect's release archives and renders its
// krew manifest. The Makefile's dist and krew-manifest targets run it; run it
// through them so that the version, ldflags and platforms come from one
// place:
//
//	go run ./hack/dist archives -version v1.2.3 -ldflags "..." -platforms "linux/amd64 windows/amd64" -out dist
//	go run ./hack/dist krew-manifest -version v1.2.3 -platforms "..." -dist dist -base-url URL -template krew/reflect.yaml.tmpl -out krew/reflect.yaml
//
// It runs from the repository root and needs nothing but Go: the archives
// are written with archive/tar and archive/zip, entries sorted and stamped
// with one fixed time, so the same inputs give the same bytes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error: "+err.Error())
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: dist archives|krew-manifest [flags]")
	}
	switch args[0] {
	case "archives":
		return runArchives(args[1:])
	case "krew-manifest":
		return runKrewManifest(args[1:])
	}
	return fmt.Errorf("unknown command %q: want archives or krew-manifest", args[0])
}

func runArchives(args []string) error {
	fs := flag.NewFlagSet("archives", flag.ContinueOnError)
	var o archiveOptions
	var platforms string
	var mtime int64
	fs.StringVar(&o.Version, "version", "", "release version, v-prefixed semver such as v1.2.3")
	fs.StringVar(&o.LDFlags, "ldflags", "", "go build -ldflags (the Makefile's LDFLAGS, which stamp the version)")
	fs.StringVar(&platforms, "platforms", "", "space- or comma-separated GOOS/GOARCH pairs")
	fs.StringVar(&o.OutDir, "out", "dist", "directory the archives and the checksums file are written to")
	fs.StringVar(&o.GoCommand, "go", "go", "go command")
	fs.Int64Var(&mtime, "mtime", 0, "modification time of every archive entry, in Unix seconds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := validateVersion(o.Version); err != nil {
		return err
	}
	var err error
	if o.Platforms, err = parsePlatforms(platforms); err != nil {
		return err
	}
	o.ModTime = time.Unix(mtime, 0).UTC()
	return buildArchives(o)
}

func runKrewManifest(args []string) error {
	fs := flag.NewFlagSet("krew-manifest", flag.ContinueOnError)
	var o manifestOptions
	var platforms string
	fs.StringVar(&o.Version, "version", "", "release version, v-prefixed semver such as v1.2.3")
	fs.StringVar(&platforms, "platforms", "", "space- or comma-separated GOOS/GOARCH pairs; each needs its archive in -dist")
	fs.StringVar(&o.DistDir, "dist", "dist", "directory holding the archives")
	fs.StringVar(&o.BaseURL, "base-url", "", "URL the archives are downloaded from, without the file name")
	fs.StringVar(&o.Template, "template", "krew/reflect.yaml.tmpl", "manifest template")
	fs.StringVar(&o.Out, "out", "krew/reflect.yaml", "manifest to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := validateVersion(o.Version); err != nil {
		return err
	}
	if o.BaseURL == "" {
		return errors.New("-base-url is required")
	}
	var err error
	if o.Platforms, err = parsePlatforms(platforms); err != nil {
		return err
	}
	return writeKrewManifest(o)
}

// semverPattern is a v-prefixed semantic version, as krew requires of
// spec.version.
var semverPattern = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

func validateVersion(v string) error {
	if !semverPattern.MatchString(v) {
		return fmt.Errorf("version %q is not a v-prefixed semantic version: run make dist VERSION=v1.2.3", v)
	}
	return nil
}

// platform is one GOOS/GOARCH pair the plugin is released for.
type platform struct{ OS, Arch string }

func (p platform) String() string { return p.OS + "/" + p.Arch }

func (p platform) windows() bool { return p.OS == "windows" }

// binary is the plugin's file name in the archive.
func (p platform) binary() string {
	if p.windows() {
		return "kubectl-reflect.exe"
	}
	return "kubectl-reflect"
}

// completion is the file name of kubectl's plugin-completion helper.
func (p platform) completion() string {
	if p.windows() {
		return "kubectl_complete-reflect.cmd"
	}
	return "kubectl_complete-reflect"
}

// archiveName is the release asset of p, e.g. kubectl-reflect_v1.2.3_linux_amd64.tar.gz.
func archiveName(version string, p platform) string {
	ext := ".tar.gz"
	if p.windows() {
		ext = ".zip"
	}
	return "kubectl-reflect_" + version + "_" + p.OS + "_" + p.Arch + ext
}

// checksumsName is the sha256sum-format file listing the archives.
func checksumsName(version string) string {
	return "kubectl-reflect_" + version + "_checksums.txt"
}

func parsePlatforms(s string) ([]platform, error) {
	var out []platform
	seen := map[platform]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		goos, goarch, ok := strings.Cut(f, "/")
		if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
			return nil, fmt.Errorf("platform %q is not GOOS/GOARCH", f)
		}
		p := platform{goos, goarch}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no platforms given: -platforms \"linux/amd64 darwin/arm64 ...\"")
	}
	return out, nil
}
