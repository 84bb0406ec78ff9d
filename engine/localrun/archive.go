package localrun

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// maxExtract bounds what one archive may unpack to (a guard against
// archive bombs; a model for a local run is far smaller).
const maxExtract = 16 << 30

// packTarGz packs the files under dir into a gzip'ed tar at dst, as
// SageMaker packs /opt/ml/model into model.tar.gz: paths relative to dir,
// sorted, directories included.
func packTarGz(dir, dst string) error {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	werr := func() error {
		for _, p := range paths {
			st, err := os.Lstat(p)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			name := filepath.ToSlash(rel)
			switch {
			case st.IsDir():
				if err := tw.WriteHeader(&tar.Header{Name: name + "/", Mode: 0o755, Typeflag: tar.TypeDir, ModTime: st.ModTime()}); err != nil {
					return err
				}
			case st.Mode()&os.ModeSymlink != 0:
				t, err := os.Readlink(p)
				if err != nil {
					return err
				}
				if err := tw.WriteHeader(&tar.Header{Name: name, Linkname: t, Mode: 0o777, Typeflag: tar.TypeSymlink, ModTime: st.ModTime()}); err != nil {
					return err
				}
			case st.Mode().IsRegular():
				if err := tw.WriteHeader(&tar.Header{Name: name, Mode: int64(st.Mode().Perm()), Size: st.Size(), Typeflag: tar.TypeReg, ModTime: st.ModTime()}); err != nil {
					return err
				}
				in, err := os.Open(p)
				if err != nil {
					return err
				}
				_, err = io.Copy(tw, in)
				in.Close()
				if err != nil {
					return err
				}
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		return gz.Close()
	}()
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(dst)
	}
	return werr
}

// archiveEntry is a regular file of an archive.
type archiveEntry struct {
	Name string
	Size int64
}

// listTarGz lists the regular files of a gzip'ed tar ("./" prefixes
// dropped), or says why it is not one.
func listTarGz(src string) ([]archiveEntry, error) {
	var out []archiveEntry
	err := walkTarGz(src, func(h *tar.Header, name string, _ io.Reader) error {
		if h.Typeflag == tar.TypeReg {
			out = append(out, archiveEntry{name, h.Size})
		}
		return nil
	})
	return out, err
}

// extractTarGz unpacks a gzip'ed tar into dst. Entries that would land
// outside dst (absolute paths, "..", links out) are refused; devices and
// other special entries are skipped.
func extractTarGz(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	var total int64
	return walkTarGz(src, func(h *tar.Header, name string, r io.Reader) error {
		target := filepath.Join(dst, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			return os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			total += h.Size
			if total > maxExtract {
				return fmt.Errorf("unpacks to more than %d GiB", maxExtract>>30)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(h.Mode).Perm() | 0o600
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			if _, err := io.CopyN(f, r, h.Size); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		case tar.TypeSymlink:
			link := h.Linkname
			if path.IsAbs(link) || !within(path.Join(path.Dir(name), link)) {
				return fmt.Errorf("entry %s links outside the archive (%s)", name, link)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		return nil
	})
}

// within reports whether a cleaned relative archive path stays inside the
// archive root.
func within(p string) bool {
	p = path.Clean(p)
	return p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p)
}

func walkTarGz(src string, fn func(h *tar.Header, name string, r io.Reader) error) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s is not a gzip compressed tar archive: %v", filepath.Base(src), err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s is not a readable tar archive: %v", filepath.Base(src), err)
		}
		name := strings.TrimPrefix(path.Clean(strings.TrimPrefix(h.Name, "./")), "./")
		if name == "." || name == "" {
			continue
		}
		if !within(name) {
			return fmt.Errorf("entry %s lies outside the archive", h.Name)
		}
		if err := fn(h, name, tr); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(src), err)
		}
	}
}
