package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"text/template"
	"time"

	"sigs.k8s.io/yaml"
)

func TestParsePlatforms(t *testing.T) {
	got, err := parsePlatforms("linux/amd64 darwin/arm64,windows/amd64  linux/amd64")
	if err != nil {
		t.Fatal(err)
	}
	want := []platform{{"linux", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"", "linux", "linux/", "/amd64", "linux/amd64/v2"} {
		if _, err := parsePlatforms(bad); err == nil {
			t.Errorf("parsePlatforms(%q) succeeded", bad)
		}
	}
}

func TestValidateVersion(t *testing.T) {
	for _, ok := range []string{"v0.1.0", "v1.22.333", "v1.2.3-rc.1", "v1.2.3+build.5"} {
		if err := validateVersion(ok); err != nil {
			t.Errorf("validateVersion(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "0.1.0", "v1.2", "v01.2.3", "7c1d0f3-dirty", "v1.2.3-"} {
		if err := validateVersion(bad); err == nil {
			t.Errorf("validateVersion(%q) succeeded", bad)
		}
	}
}

func TestNames(t *testing.T) {
	if got := archiveName("v1.2.3", platform{"linux", "amd64"}); got != "kubectl-reflect_v1.2.3_linux_amd64.tar.gz" {
		t.Errorf("linux archive: %s", got)
	}
	win := platform{"windows", "amd64"}
	if got := archiveName("v1.2.3", win); got != "kubectl-reflect_v1.2.3_windows_amd64.zip" {
		t.Errorf("windows archive: %s", got)
	}
	if win.binary() != "kubectl-reflect.exe" || win.completion() != "kubectl_complete-reflect.cmd" {
		t.Errorf("windows files: %s, %s", win.binary(), win.completion())
	}
	if got := checksumsName("v1.2.3"); got != "kubectl-reflect_v1.2.3_checksums.txt" {
		t.Errorf("checksums: %s", got)
	}
}

func TestChecksumsRoundTrip(t *testing.T) {
	sums := map[string]string{"b.zip": strings.Repeat("b", 64), "a.tar.gz": strings.Repeat("a", 64)}
	text := formatChecksums(sums)
	if want := strings.Repeat("a", 64) + "  a.tar.gz\n" + strings.Repeat("b", 64) + "  b.zip\n"; text != want {
		t.Errorf("formatChecksums = %q, want %q", text, want)
	}
	got, err := parseChecksums(text)
	if err != nil || !reflect.DeepEqual(got, sums) {
		t.Errorf("parseChecksums = %v, %v; want %v", got, err, sums)
	}
	if _, err := parseChecksums("abc  x\n"); err == nil {
		t.Error("parseChecksums accepted a short sum")
	}
}

// archiveFile is an entry as read back from an archive.
type archiveFile struct {
	Name    string
	Mode    os.FileMode
	ModTime time.Time
	Data    string
}

func testEntries(t *testing.T) []entry {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return []entry{ // unsorted on purpose
		{Name: "kubectl-reflect", Source: write("bin", "binary"), Mode: 0o755},
		{Name: "README.md", Source: write("readme", "# readme"), Mode: 0o644},
		{Name: "LICENSE", Source: write("license", "license text"), Mode: 0o644},
	}
}

func TestArchivesAreFlatSortedAndReproducible(t *testing.T) {
	modTime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	want := []archiveFile{
		{"LICENSE", 0o644, modTime, "license text"},
		{"README.md", 0o644, modTime, "# readme"},
		{"kubectl-reflect", 0o755, modTime, "binary"},
	}
	for _, name := range []string{"a.tar.gz", "a.zip"} {
		t.Run(name, func(t *testing.T) {
			entries := testEntries(t)
			dir := t.TempDir()
			first, second := filepath.Join(dir, "1-"+name), filepath.Join(dir, "2-"+name)
			if err := writeArchive(first, entries, modTime); err != nil {
				t.Fatal(err)
			}
			if err := writeArchive(second, entries, modTime); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(first)
			b, _ := os.ReadFile(second)
			if !bytes.Equal(a, b) {
				t.Error("two archives of the same files differ")
			}
			var got []archiveFile
			if strings.HasSuffix(name, ".zip") {
				got = readZip(t, a)
			} else {
				got = readTarGz(t, a)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("entries:\n got %v\nwant %v", got, want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func readTarGz(t *testing.T, b []byte) []archiveFile {
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header has name %q, time %v", gz.Name, gz.ModTime)
	}
	var out []archiveFile
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.Typeflag != tar.TypeReg {
			t.Errorf("%s: owner %d/%d %q/%q, type %c", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.Typeflag)
		}
		data, _ := io.ReadAll(tr)
		out = append(out, archiveFile{h.Name, os.FileMode(h.Mode), h.ModTime.UTC(), string(data)})
	}
}

func readZip(t *testing.T, b []byte) []archiveFile {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []archiveFile
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		out = append(out, archiveFile{f.Name, f.Mode(), f.Modified.UTC(), string(data)})
	}
	return out
}

func TestManifestDataHashesTheArchives(t *testing.T) {
	dir := t.TempDir()
	linux := platform{"linux", "arm64"}
	name := archiveName("v1.0.0", linux)
	if err := os.WriteFile(filepath.Join(dir, name), []byte("archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("archive"))
	o := manifestOptions{Version: "v1.0.0", Platforms: []platform{linux}, DistDir: dir, BaseURL: "https://example.com/dl/v1.0.0/"}
	data, err := manifestDataFor(o)
	if err != nil {
		t.Fatal(err)
	}
	want := manifestPlatform{OS: "linux", Arch: "arm64", URI: "https://example.com/dl/v1.0.0/" + name,
		Sha256: hex.EncodeToString(sum[:]), Bin: "kubectl-reflect", Completion: "kubectl_complete-reflect"}
	if !reflect.DeepEqual(data.Platforms, []manifestPlatform{want}) {
		t.Errorf("platforms = %+v, want %+v", data.Platforms, want)
	}

	missing := o
	missing.Platforms = append(missing.Platforms, platform{"darwin", "arm64"})
	if _, err := manifestDataFor(missing); err == nil || !strings.Contains(err.Error(), "run make dist VERSION=v1.0.0") {
		t.Errorf("a missing archive gave %v", err)
	}
	stale := strings.Repeat("0", 64) + "  " + name + "\n"
	if err := os.WriteFile(filepath.Join(dir, checksumsName("v1.0.0")), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := manifestDataFor(o); err == nil || !strings.Contains(err.Error(), "make dist again") {
		t.Errorf("a stale checksums file gave %v", err)
	}
}

// fakeSum stands for the sha256 of the release asset at url.
func fakeSum(url string) string {
	s := sha256.Sum256([]byte(path.Base(url)))
	return hex.EncodeToString(s[:])
}

// renderReleaseBotTemplate renders .krew.yaml the way krew-release-bot
// does, with fakeSum for each asset's sha256.
func renderReleaseBotTemplate(t *testing.T, file, tag string) []byte {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	addURIAndSha := func(url, tag string) (string, error) {
		var b strings.Builder
		err := template.Must(template.New("url").Parse(url)).Execute(&b, map[string]string{"TagName": tag})
		return "uri: " + b.String() + "\n    sha256: " + fakeSum(b.String()), err
	}
	tmpl, err := template.New(".krew.yaml").Funcs(template.FuncMap{"addURIAndSha": addURIAndSha}).Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, map[string]string{"TagName": tag}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// makefilePlatforms reads PLATFORMS from the Makefile, the list `make dist`
// builds.
func makefilePlatforms(t *testing.T) []platform {
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PLATFORMS \?= (.*)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no PLATFORMS ?= line in the Makefile")
	}
	ps, err := parsePlatforms(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestReleaseBotTemplateMatchesTheManifestTemplate keeps .krew.yaml, which
// krew-release-bot renders on a release, and krew/reflect.yaml.tmpl, which
// `make krew-manifest` renders, describing the same manifest for the
// Makefile's PLATFORMS.
func TestReleaseBotTemplateMatchesTheManifestTemplate(t *testing.T) {
	const version = "v1.2.3"
	const base = "https://github.com/kubectl-reflect/kubectl-reflect/releases/download/" + version
	data := manifestData{Version: version}
	for _, p := range makefilePlatforms(t) {
		uri := base + "/" + archiveName(version, p)
		data.Platforms = append(data.Platforms, manifestPlatform{OS: p.OS, Arch: p.Arch, URI: uri,
			Sha256: fakeSum(uri), Bin: p.binary(), Completion: p.completion()})
	}
	text, err := os.ReadFile("../../krew/reflect.yaml.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := renderManifest("reflect.yaml.tmpl", string(text), data)
	if err != nil {
		t.Fatal(err)
	}
	bots := renderReleaseBotTemplate(t, "../../.krew.yaml", version)
	var a, b any
	if err := yaml.Unmarshal(ours, &a); err != nil {
		t.Fatalf("krew/reflect.yaml.tmpl renders invalid YAML: %v\n%s", err, ours)
	}
	if err := yaml.Unmarshal(bots, &b); err != nil {
		t.Fatalf(".krew.yaml renders invalid YAML: %v\n%s", err, bots)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the two templates differ:\n--- krew/reflect.yaml.tmpl\n%s\n--- .krew.yaml\n%s", ours, bots)
	}
}
