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
	"sort"
	"strings"
	"syscall"

	"github.com/cursus-go/cursus/internal/safefs"
)

// The bounds of one archive's extraction, a guard against archive bombs:
// the model, source and payload archives of a local run are far smaller.
// An archive past one fails the step, naming the entry that passed it.
const (
	// MaxArchiveEntries is the most entries (files, directories, links)
	// one archive may hold.
	MaxArchiveEntries = 50_000
	// MaxArchiveBytes is the most one archive may unpack to.
	MaxArchiveBytes = 2 << 30
	// MaxArchiveRatio is the most bytes an archive may unpack to per byte
	// of its compressed size, once it has unpacked archiveRatioFloor.
	MaxArchiveRatio = 100
)

// archiveRatioFloor is the unpacked size below which the ratio is not
// checked (small files of repeated bytes compress far better than 100:1).
const archiveRatioFloor = 16 << 20

// packTarGz packs the files under src into a gzip'ed tar at dst, as
// SageMaker packs /opt/ml/model into model.tar.gz: paths relative to src,
// sorted, directories included, symbolic links as links. src is a job's
// output: it is read through a root on it, regular files only.
func packTarGz(src, dst hostPath) error {
	r, name, err := src.root()
	if err != nil {
		return err
	}
	defer r.Close()
	sub, err := r.OpenRoot(name)
	if err != nil {
		return src.pathError(err)
	}
	defer sub.Close()
	var paths []string
	err = fs.WalkDir(sub.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeTarGz(sub, paths, pw)) }()
	err = dst.writeFrom(pr, 0o644)
	pr.CloseWithError(errors.New("the archive was not written"))
	return err
}

// writeTarGz writes the entries paths of r as a gzip'ed tar to w.
func writeTarGz(r *os.Root, paths []string, w io.Writer) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, p := range paths {
		st, err := r.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case st.IsDir():
			if err := tw.WriteHeader(&tar.Header{Name: p + "/", Mode: 0o755, Typeflag: tar.TypeDir, ModTime: st.ModTime()}); err != nil {
				return err
			}
		case st.Mode()&os.ModeSymlink != 0:
			t, err := r.Readlink(p)
			if err != nil {
				return err
			}
			if err := tw.WriteHeader(&tar.Header{Name: p, Linkname: t, Mode: 0o777, Typeflag: tar.TypeSymlink, ModTime: st.ModTime()}); err != nil {
				return err
			}
		case st.Mode().IsRegular():
			if err := packFile(r, p, tw); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// packFile writes one regular file of r to tw: opened without blocking,
// checked to be a regular file on the descriptor, its size as opened.
func packFile(r *os.Root, p string, tw *tar.Writer) error {
	f, err := r.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s)", p, st.Mode().Type())
	}
	if err := tw.WriteHeader(&tar.Header{Name: p, Mode: int64(st.Mode().Perm()), Size: st.Size(), Typeflag: tar.TypeReg, ModTime: st.ModTime()}); err != nil {
		return err
	}
	_, err = io.CopyN(tw, f, st.Size())
	return err
}

// archiveEntry is a regular file of an archive.
type archiveEntry struct {
	Name string
	Size int64
}

// listTarGz lists the regular files of a gzip'ed tar ("./" prefixes
// dropped), or says why it is not one.
func listTarGz(src hostPath) ([]archiveEntry, error) {
	var out []archiveEntry
	err := walkTarGz(src, func(h *tar.Header, name string, _ io.Reader) error {
		if h.Typeflag == tar.TypeReg {
			out = append(out, archiveEntry{name, h.Size})
		}
		return nil
	})
	return out, err
}

// ArchiveError is an archive entry that cannot be unpacked: it would
// leave the destination, or the archive passes a bound of extraction.
type ArchiveError struct {
	Archive string // the archive's file name
	Entry   string // the entry's name as the archive has it
	Problem string
}

// Error names the archive, the entry and the problem.
func (e *ArchiveError) Error() string {
	return fmt.Sprintf("%s: entry %s: %s", e.Archive, e.Entry, e.Problem)
}

// extractTarGz unpacks a gzip'ed tar into dst through a root on dst: no
// entry, link or later entry through a link can write outside it. A link
// whose target leaves the archive is refused; devices, FIFOs and other
// special entries are skipped. The archive may hold at most
// MaxArchiveEntries entries and unpack to at most MaxArchiveBytes and
// MaxArchiveRatio times its compressed size. Files are readable by
// everyone (a job may run as another user than the runner).
func extractTarGz(src hostPath, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	var entries int
	var total int64
	archive := path.Base(src.String())
	return walkTarGzCounting(src, func(h *tar.Header, name string, r io.Reader, compressed func() int64) error {
		fail := func(format string, a ...any) error {
			return &ArchiveError{Archive: archive, Entry: h.Name, Problem: fmt.Sprintf(format, a...)}
		}
		if entries++; entries > MaxArchiveEntries {
			return fail("the archive holds more than %d entries", MaxArchiveEntries)
		}
		var err error
		switch h.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, 0o755)
		case tar.TypeReg:
			if h.Size > MaxArchiveBytes-total {
				return fail("the archive unpacks to more than %s", safefs.FormatSize(MaxArchiveBytes))
			}
			if err = prepareEntry(root, name); err != nil {
				break
			}
			var f *os.File
			if f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(h.Mode).Perm()|0o644); err != nil {
				break
			}
			written, cerr := io.Copy(f, &boundedEntry{r: r, left: h.Size, total: &total, compressed: compressed})
			if err = errors.Join(cerr, f.Close()); err == nil && written != h.Size {
				err = io.ErrUnexpectedEOF
			}
			var be *boundError
			if errors.As(err, &be) {
				return fail("%s", be.problem)
			}
		case tar.TypeSymlink:
			link := h.Linkname
			if path.IsAbs(link) || !within(path.Join(path.Dir(name), link)) {
				return fail("it links outside the archive (%s)", link)
			}
			if err = prepareEntry(root, name); err == nil {
				err = root.Symlink(link, name)
			}
		case tar.TypeLink:
			target := strings.TrimPrefix(path.Clean(strings.TrimPrefix(h.Linkname, "./")), "./")
			if !within(target) {
				return fail("it links outside the archive (%s)", h.Linkname)
			}
			if err = prepareEntry(root, name); err == nil {
				err = root.Link(target, name)
			}
		default:
			return nil
		}
		if err != nil {
			if escapes(err) {
				return fail("it would be written outside the destination (through a link an earlier entry made)")
			}
			return fail("%v", unwrapPath(err))
		}
		return nil
	})
}

// prepareEntry makes the parents of name and removes what an earlier
// entry of the same name left (a file or a link; a directory stays and
// the entry then fails).
func prepareEntry(root *os.Root, name string) error {
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	st, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.IsDir():
		return errors.New("an earlier entry made a directory of that name")
	}
	return root.Remove(name)
}

// boundedEntry reads an entry's content, failing once the archive passes
// MaxArchiveBytes or MaxArchiveRatio.
type boundedEntry struct {
	r          io.Reader
	left       int64
	total      *int64
	compressed func() int64
}

type boundError struct{ problem string }

func (e *boundError) Error() string { return e.problem }

func (b *boundedEntry) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	*b.total += int64(n)
	if *b.total > MaxArchiveBytes {
		return n, &boundError{"the archive unpacks to more than " + safefs.FormatSize(MaxArchiveBytes)}
	}
	if c := b.compressed(); *b.total > archiveRatioFloor && *b.total > MaxArchiveRatio*c {
		return n, &boundError{fmt.Sprintf("the archive unpacks to more than %d times its compressed size (%s from %s so far)",
			MaxArchiveRatio, safefs.FormatSize(*b.total), safefs.FormatSize(c))}
	}
	return n, err
}

// escapes reports an os.Root error for a path that leaves the root (it
// reports it with an unexported error, not an errno).
func escapes(err error) bool {
	var errno syscall.Errno
	if err == nil || errors.As(err, &errno) || errors.Is(err, fs.ErrNotExist) {
		return false
	}
	return strings.Contains(err.Error(), "escapes")
}

func unwrapPath(err error) error {
	for {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err
		case errors.As(err, &le):
			err = le.Err
		default:
			return err
		}
	}
}

// within reports whether a cleaned relative archive path stays inside the
// archive root.
func within(p string) bool {
	p = path.Clean(p)
	return p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p)
}

func walkTarGz(src hostPath, fn func(h *tar.Header, name string, r io.Reader) error) error {
	return walkTarGzCounting(src, func(h *tar.Header, name string, r io.Reader, _ func() int64) error { return fn(h, name, r) })
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// walkTarGzCounting calls fn for each entry of a gzip'ed tar (read as a
// regular file through src's root) with its cleaned name and a function
// that says how many compressed bytes have been read so far.
func walkTarGzCounting(src hostPath, fn func(h *tar.Header, name string, r io.Reader, compressed func() int64) error) error {
	f, err := src.open(safefs.KindData)
	if err != nil {
		return err
	}
	defer f.Close()
	base := path.Base(src.String())
	cr := &countingReader{r: f}
	gz, err := gzip.NewReader(cr)
	if err != nil {
		return fmt.Errorf("%s is not a gzip compressed tar archive: %v", base, err)
	}
	tr := tar.NewReader(gz)
	compressed := func() int64 { return cr.n }
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s is not a readable tar archive: %v", base, err)
		}
		name := strings.TrimPrefix(path.Clean(strings.TrimPrefix(h.Name, "./")), "./")
		if name == "." || name == "" {
			continue
		}
		if !within(name) {
			return &ArchiveError{Archive: base, Entry: h.Name, Problem: "it lies outside the archive"}
		}
		if err := fn(h, name, tr, compressed); err != nil {
			var ae *ArchiveError
			if errors.As(err, &ae) {
				return err
			}
			return fmt.Errorf("%s: %w", base, err)
		}
	}
}
