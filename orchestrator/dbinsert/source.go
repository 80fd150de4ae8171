// Package dbinsert puts PerconaFT's db-insert example program on a host,
// built twice from one PerconaFT source tree: db-insert against the
// fractal-tree library it builds from that tree, db-insert-bdb against the
// host's Berkeley DB (Debian's libdb5.3-dev). They are PerconaFT's own
// programs (examples/db-insert.c), compiled, never rewritten. Builds live in
// a private directory of the SSH user's home, one per source checksum, so a
// second build of the same source is a cache hit.
package dbinsert

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Source is a PerconaFT source tree as orch sends it to a host: an archive
// as given (.tar.zst, .tar.gz, .tgz, .tar), or a directory orch tars.
type Source struct {
	// Path is what the user named.
	Path string
	// Sum is the hex SHA-256 of what is sent: the archive's bytes, or the
	// tar orch made of a directory (entries sorted, times and owners
	// zeroed, so the same tree always gives the same sum).
	Sum string
	// Ext is the archive's kind on the host: "tar.zst", "tar.gz" or "tar".
	Ext  string
	data []byte // a directory's tar; nil for an archive (read from Path)
}

// OpenSource checks and checksums a source, before any host is contacted.
func OpenSource(path string) (*Source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("PerconaFT source: %w", err)
	}
	if st.IsDir() {
		return dirSource(path)
	}
	s := &Source{Path: path}
	switch name := strings.ToLower(path); {
	case strings.HasSuffix(name, ".tar.zst"), strings.HasSuffix(name, ".tzst"):
		s.Ext = "tar.zst"
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		s.Ext = "tar.gz"
	case strings.HasSuffix(name, ".tar"):
		s.Ext = "tar"
	default:
		return nil, fmt.Errorf("PerconaFT source %s: not a directory or a .tar.zst, .tar.gz or .tar archive", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("PerconaFT source: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("PerconaFT source %s: %w", path, err)
	}
	s.Sum = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// Open returns the bytes to send.
func (s *Source) Open() (io.ReadCloser, error) {
	if s.data != nil {
		return io.NopCloser(bytes.NewReader(s.data)), nil
	}
	return os.Open(s.Path)
}

// dirSource tars a source directory under one top directory, as release
// archives are (the host strips it).
func dirSource(root string) (*Source, error) {
	if _, err := os.Stat(filepath.Join(root, "examples", "db-insert.c")); err != nil {
		return nil, fmt.Errorf("PerconaFT source %s: no examples/db-insert.c (PerconaFT's examples branch, commit f85cba7e8, has it)", root)
	}
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if p != root {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("PerconaFT source: %w", err)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		if err := addTar(tw, root, p); err != nil {
			return nil, fmt.Errorf("PerconaFT source: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(buf.Bytes())
	return &Source{Path: root, Sum: hex.EncodeToString(sum[:]), Ext: "tar", data: buf.Bytes()}, nil
}

func addTar(tw *tar.Writer, root, p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return err
	}
	link := ""
	if st.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(p); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(st, link)
	if err != nil {
		return err
	}
	hdr.Name = "perconaft/" + filepath.ToSlash(rel)
	if st.IsDir() {
		hdr.Name += "/"
	}
	hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
	hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = time.Unix(0, 0), time.Time{}, time.Time{}
	hdr.Format = tar.FormatPAX
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}
