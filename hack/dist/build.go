package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// archiveOptions configure buildArchives.
type archiveOptions struct {
	Version   string
	LDFlags   string
	Platforms []platform
	OutDir    string
	GoCommand string
	ModTime   time.Time
}

// mainPackage is the plugin's main package, built for every platform.
const mainPackage = "./cmd/kubectl-reflect"

// buildArchives builds the plugin for every platform and writes one archive
// each, with the binary, LICENSE, README.md and the completion helper at its
// root, then the checksums file of those archives.
func buildArchives(o archiveOptions) error {
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "kubectl-reflect-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	sums := map[string]string{}
	for _, p := range o.Platforms {
		bin := filepath.Join(work, p.OS+"_"+p.Arch, p.binary())
		fmt.Fprintf(os.Stderr, "dist: building %s %s\n", p, o.Version)
		if err := goBuild(o, p, bin); err != nil {
			return err
		}
		name := archiveName(o.Version, p)
		path := filepath.Join(o.OutDir, name)
		if err := writeArchive(path, archiveEntries(p, bin), o.ModTime); err != nil {
			return err
		}
		if sums[name], err = sha256File(path); err != nil {
			return err
		}
		fmt.Println(path)
	}
	path := filepath.Join(o.OutDir, checksumsName(o.Version))
	if err := os.WriteFile(path, []byte(formatChecksums(sums)), 0o644); err != nil {
		return err
	}
	fmt.Println(path)
	return nil
}

// archiveEntries are the files of p's archive; bin is the built binary.
func archiveEntries(p platform, bin string) []entry {
	return []entry{
		{Name: p.binary(), Source: bin, Mode: 0o755},
		{Name: p.completion(), Source: filepath.Join("hack", p.completion()), Mode: 0o755},
		{Name: "LICENSE", Source: "LICENSE", Mode: 0o644},
		{Name: "README.md", Source: "README.md", Mode: 0o644},
	}
}

// goBuild builds a static, path-free binary for p with the version stamped
// in through o.LDFlags.
func goBuild(o archiveOptions, p platform, out string) error {
	cmd := exec.Command(o.GoCommand, "build", "-trimpath", "-ldflags", o.LDFlags, "-o", out, mainPackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %w", p, err)
	}
	return nil
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// formatChecksums writes sums (file name -> hex sha256) the way sha256sum
// does, sorted by name, so `sha256sum -c` checks it.
func formatChecksums(sums map[string]string) string {
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(sums)) {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return b.String()
}

// parseChecksums reads a sha256sum-format file into file name -> sha256.
func parseChecksums(text string) (map[string]string, error) {
	sums := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != sha256.Size*2 {
			return nil, fmt.Errorf("line %d is not \"SHA256  NAME\": %q", i+1, line)
		}
		sums[name] = sum
	}
	return sums, nil
}
