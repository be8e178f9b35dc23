package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// entry is one file at the root of an archive.
type entry struct {
	Name   string      // name in the archive
	Source string      // file it is read from
	Mode   os.FileMode // 0o755 or 0o644
}

// writeArchive writes entries to path as a .tar.gz or, for a .zip path, a
// zip file. Entries are sorted by name and every one gets modTime, owner 0
// and no user or group names, so equal inputs give equal bytes. The file is
// written under a temporary name and renamed into place.
func writeArchive(path string, entries []entry, modTime time.Time) (err error) {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.Name, b.Name) })
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if strings.HasSuffix(path, ".zip") {
		err = writeZip(tmp, entries, modTime)
	} else {
		err = writeTarGz(tmp, entries, modTime)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeTarGz(w io.Writer, entries []entry, modTime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression) // header without name or time
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		data, err := os.ReadFile(e.Source)
		if err != nil {
			return err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.Name,
			Mode:     int64(e.Mode.Perm()),
			Size:     int64(len(data)),
			ModTime:  modTime,
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []entry, modTime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range entries {
		data, err := os.ReadFile(e.Source)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: modTime}
		hdr.SetMode(e.Mode.Perm()) // also marks the entry as made on Unix so unzip keeps the mode
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}
