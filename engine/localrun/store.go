package localrun

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/internal/safefs"
)

// store is the run's stand-in for S3: every s3://bucket/key is the local
// path <root>/bucket/key, except URIs under a binding (a path the caller
// gave in data, or an output a step wrote), which resolve below the bound
// path. Longer bindings win.
type store struct {
	root  string
	binds []binding
}

type binding struct {
	uri  string // s3://bucket/key, no trailing slash
	path string
	from string // what made it: a data key, or "<step>.<output>"
}

// splitS3 splits s3://bucket/key into its bucket and key (no leading or
// trailing slash), refusing anything else and keys with . or .. segments.
func splitS3(uri string) (string, string, error) {
	rest, ok := strings.CutPrefix(uri, "s3://")
	if !ok {
		return "", "", fmt.Errorf("%q is not an s3:// URI", uri)
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%q has no bucket", uri)
	}
	key = strings.Trim(key, "/")
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return "", "", fmt.Errorf("%q: a key segment is %q", uri, seg)
		}
	}
	return bucket, key, nil
}

// normURI is uri without a trailing slash (a prefix and the same prefix
// with "/" name the same objects here).
func normURI(uri string) (string, error) {
	b, k, err := splitS3(uri)
	if err != nil {
		return "", err
	}
	if k == "" {
		return "s3://" + b, nil
	}
	return "s3://" + b + "/" + k, nil
}

// storePath is where uri lives in the store itself.
func (s *store) storePath(uri string) (string, error) {
	b, k, err := splitS3(uri)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.root, b, filepath.FromSlash(k)), nil
}

// bind makes uri and everything under it resolve below p.
func (s *store) bind(uri, p, from string) error {
	n, err := normURI(uri)
	if err != nil {
		return err
	}
	for i, b := range s.binds {
		if b.uri == n {
			s.binds[i] = binding{n, p, from}
			return nil
		}
	}
	s.binds = append(s.binds, binding{n, p, from})
	sort.SliceStable(s.binds, func(i, k int) bool { return len(s.binds[i].uri) > len(s.binds[k].uri) })
	return nil
}

// resolve returns the local path of uri and the binding it came through
// (nil: the store itself).
func (s *store) resolve(uri string) (string, *binding, error) {
	n, err := normURI(uri)
	if err != nil {
		return "", nil, err
	}
	for i := range s.binds {
		b := &s.binds[i]
		if n == b.uri {
			return b.path, b, nil
		}
		if strings.HasPrefix(n, b.uri+"/") {
			return filepath.Join(b.path, filepath.FromSlash(n[len(b.uri)+1:])), b, nil
		}
	}
	p, err := s.storePath(n)
	return p, nil, err
}

// put copies a local file into the store at uri.
func (s *store) put(uri, src string) error {
	dst, err := s.storePath(uri)
	if err != nil {
		return err
	}
	return copyFile(src, dst)
}

// hasObjects reports whether p is a file or a directory holding at least
// one file (an S3 prefix with objects under it).
func hasObjects(p string) bool {
	st, err := os.Stat(p)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		return true
	}
	found := false
	_ = filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if !d.IsDir() {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// objectName is the name an S3 object gets in a container directory when
// its URI names it alone: the last segment of the key.
func objectName(uri string) string {
	_, k, err := splitS3(uri)
	if err != nil || k == "" {
		return ""
	}
	return path.Base(k)
}

// copyFile copies a regular file through the trusted file-access layer
// (regular files only, written whole or not at all).
func copyFile(src, dst string) error {
	fsys := safefs.Trusted()
	in, err := fsys.Open(src, safefs.KindData)
	if err != nil {
		return err
	}
	defer in.Close()
	return fsys.WriteFrom(dst, in, 0o644)
}
