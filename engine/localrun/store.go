package localrun

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/internal/safefs"
)

// store is the run's stand-in for S3: every s3://bucket/key is the local
// path <root>/bucket/key, except URIs under a binding (a path the caller
// gave in data, or an output a step wrote), which resolve below the bound
// path. Longer bindings win. Every path is a hostPath: what lies below the
// store's root or a binding (objects jobs wrote) is reached through a root
// on it, never through a link a job made.
type store struct {
	root  string
	binds []binding
}

type binding struct {
	uri  string // s3://bucket/key, no trailing slash
	at   hostPath
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
func (s *store) storePath(uri string) (hostPath, error) {
	b, k, err := splitS3(uri)
	if err != nil {
		return hostPath{}, err
	}
	return below(s.root, path.Join(b, k)), nil
}

// bind makes uri and everything under it resolve below at.
func (s *store) bind(uri string, at hostPath, from string) error {
	n, err := normURI(uri)
	if err != nil {
		return err
	}
	for i, b := range s.binds {
		if b.uri == n {
			s.binds[i] = binding{n, at, from}
			return nil
		}
	}
	s.binds = append(s.binds, binding{n, at, from})
	sort.SliceStable(s.binds, func(i, k int) bool { return len(s.binds[i].uri) > len(s.binds[k].uri) })
	return nil
}

// resolve returns the local path of uri and the binding it came through
// (nil: the store itself).
func (s *store) resolve(uri string) (hostPath, *binding, error) {
	n, err := normURI(uri)
	if err != nil {
		return hostPath{}, nil, err
	}
	for i := range s.binds {
		b := &s.binds[i]
		if n == b.uri {
			return b.at, b, nil
		}
		if strings.HasPrefix(n, b.uri+"/") {
			return b.at.join(filepath.FromSlash(n[len(b.uri)+1:])), b, nil
		}
	}
	p, err := s.storePath(n)
	return p, nil, err
}

// put copies a local file (the runner's own) into the store at uri.
func (s *store) put(uri, src string) error {
	dst, err := s.storePath(uri)
	if err != nil {
		return err
	}
	in, err := safefs.Trusted().Open(src, safefs.KindData)
	if err != nil {
		return err
	}
	defer in.Close()
	return dst.writeFrom(in, 0o644)
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
