package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

// manifestOptions configure writeKrewManifest.
type manifestOptions struct {
	Version   string
	Platforms []platform
	DistDir   string
	BaseURL   string
	Template  string
	Out       string
}

// manifestData is what krew/reflect.yaml.tmpl sees.
type manifestData struct {
	Version   string
	Platforms []manifestPlatform
}

// manifestPlatform is one entry of spec.platforms.
type manifestPlatform struct {
	OS, Arch   string
	URI        string
	Sha256     string
	Bin        string // the plugin's file name in the archive
	Completion string // the completion helper's file name in the archive
}

// writeKrewManifest renders the template with the sha256 of each
// platform's archive in o.DistDir and its download URI under o.BaseURL.
func writeKrewManifest(o manifestOptions) error {
	data, err := manifestDataFor(o)
	if err != nil {
		return err
	}
	text, err := os.ReadFile(o.Template)
	if err != nil {
		return err
	}
	out, err := renderManifest(filepath.Base(o.Template), string(text), data)
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.Out, out, 0o644); err != nil {
		return err
	}
	fmt.Println(o.Out)
	return nil
}

// manifestDataFor hashes the archives. Where the checksums file of the
// version is present, it must agree: a mismatch means the archives changed
// after it was written.
func manifestDataFor(o manifestOptions) (manifestData, error) {
	listed := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(o.DistDir, checksumsName(o.Version))); err == nil {
		if listed, err = parseChecksums(string(b)); err != nil {
			return manifestData{}, fmt.Errorf("%s: %w", checksumsName(o.Version), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return manifestData{}, err
	}
	data := manifestData{Version: o.Version}
	for _, p := range o.Platforms {
		name := archiveName(o.Version, p)
		sum, err := sha256File(filepath.Join(o.DistDir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return manifestData{}, fmt.Errorf("no archive %s in %s: run make dist VERSION=%s first", name, o.DistDir, o.Version)
		} else if err != nil {
			return manifestData{}, err
		}
		if want, ok := listed[name]; ok && want != sum {
			return manifestData{}, fmt.Errorf("%s has sha256 %s but %s lists %s: run make dist again", name, sum, checksumsName(o.Version), want)
		}
		data.Platforms = append(data.Platforms, manifestPlatform{
			OS: p.OS, Arch: p.Arch,
			URI:    strings.TrimSuffix(o.BaseURL, "/") + "/" + name,
			Sha256: sum,
			Bin:    p.binary(), Completion: p.completion(),
		})
	}
	return data, nil
}

func renderManifest(name, text string, data manifestData) ([]byte, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
