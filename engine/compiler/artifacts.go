package compiler

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/sagemaker"
)

// Artifact kinds.
const (
	// KindFile is one local file uploaded as is (a processing script).
	KindFile = "file"
	// KindDirectory is a local directory uploaded file by file under an S3
	// prefix (a processing source directory; SageMaker copies the whole
	// prefix into the container).
	KindDirectory = "directory"
	// KindSourceTarball is a local directory (or a single script) packed
	// into sourcedir.tar.gz, as training jobs and model containers expect.
	KindSourceTarball = "source_tarball"
	// KindGenerated is a file the compiler writes from a config value (an
	// object or list given to a config-sourced input, as JSON); LocalPath
	// names the config field it comes from.
	KindGenerated = "generated"
)

// Artifact is one entry of the upload manifest: local code the definition
// refers to by its S3 URI. For a file, SHA256 and Size are the file's; for
// a directory or a tarball they cover the source tree (SHA-256 over the
// sorted list of "<relative path>\x00<file sha256>\n" lines) and its total
// size, so the S3 key changes exactly when the code does. The bytes
// uploaded for a tarball are produced by Materialize.
type Artifact struct {
	Kind      string   `json:"kind"`
	LocalPath string   `json:"local_path"`
	S3URI     string   `json:"s3_uri"`
	SHA256    string   `json:"sha256,omitempty"`
	Size      int64    `json:"size"`
	Files     []string `json:"files,omitempty"` // for directories and tarballs: relative paths, sorted
	Missing   bool     `json:"missing,omitempty"`
	Steps     []string `json:"steps"` // SageMaker steps that use it
	Content   []byte   `json:"-"`     // KindGenerated: the bytes to upload
}

// Manifest is the ordered upload manifest of a compile.
type Manifest []Artifact

// MissingFiles lists the local paths of artifacts that do not exist.
func (m Manifest) MissingFiles() []string {
	var out []string
	for _, a := range m {
		if a.Missing {
			out = append(out, a.LocalPath)
		}
	}
	return out
}

// Materialize turns the manifest into the file list smclient.Upsert
// uploads: files as they are, directories one item per file under their
// prefix, tarballs packed (deterministically: sorted entries, zero times
// and owners) into workDir. It refuses a manifest with missing files.
func (m Manifest) Materialize(workDir string) (sagemaker.Manifest, error) {
	if missing := m.MissingFiles(); len(missing) > 0 {
		return nil, &FileError{Path: strings.Join(missing, ", "), What: "code file(s) the definition refers to", Missing: true}
	}
	var out sagemaker.Manifest
	for i, a := range m {
		switch a.Kind {
		case KindFile:
			it, err := sagemaker.NewUploadItem(a.LocalPath, a.S3URI)
			if err != nil {
				return nil, &FileError{Path: a.LocalPath, What: "script", Err: err}
			}
			out = append(out, it)
		case KindDirectory:
			for _, rel := range a.Files {
				it, err := sagemaker.NewUploadItem(filepath.Join(a.LocalPath, filepath.FromSlash(rel)), strings.TrimSuffix(a.S3URI, "/")+"/"+rel)
				if err != nil {
					return nil, &FileError{Path: a.LocalPath, What: "source directory", Err: err}
				}
				out = append(out, it)
			}
		case KindGenerated:
			dst := filepath.Join(workDir, fmt.Sprintf("generated-%03d-%s", i, path.Base(a.S3URI)))
			if err := os.WriteFile(dst, a.Content, 0o644); err != nil {
				return nil, err
			}
			it, err := sagemaker.NewUploadItem(dst, a.S3URI)
			if err != nil {
				return nil, err
			}
			out = append(out, it)
		case KindSourceTarball:
			dst := filepath.Join(workDir, fmt.Sprintf("sourcedir-%03d-%s.tar.gz", i, shortHash(a.SHA256)))
			if err := writeTarball(dst, a); err != nil {
				return nil, &FileError{Path: a.LocalPath, What: "source directory", Err: err}
			}
			it, err := sagemaker.NewUploadItem(dst, a.S3URI)
			if err != nil {
				return nil, &FileError{Path: dst, What: "packed source", Err: err}
			}
			out = append(out, it)
		default:
			return nil, fmt.Errorf("artifact %s: unknown kind %q", a.LocalPath, a.Kind)
		}
	}
	return out, nil
}

// writeTarball packs the artifact's files into a gzip'ed tar at dst. A
// tarball of a single file holds that file at the archive root.
func writeTarball(dst string, a Artifact) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	root := a.LocalPath
	single := false
	if st, err := os.Stat(root); err == nil && !st.IsDir() {
		single = true
	}
	for _, rel := range a.Files {
		src := filepath.Join(root, filepath.FromSlash(rel))
		if single {
			src = root
		}
		data, err := os.ReadFile(src)
		if err != nil {
			f.Close()
			return err
		}
		hdr := &tar.Header{Name: rel, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			f.Close()
			return err
		}
		if _, err := tw.Write(data); err != nil {
			f.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := gz.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// artifactSet collects the artifacts of one compile, hashing each local
// path once.
type artifactSet struct {
	codeBase string // S3 prefix for code: <pipeline_s3_loc>/code
	order    []string
	byKey    map[string]*Artifact
	hashes   map[string]treeHash
}

type treeHash struct {
	sum     string
	size    int64
	files   []string
	missing bool
	isDir   bool
	err     error
}

func newArtifactSet() *artifactSet {
	return &artifactSet{byKey: map[string]*Artifact{}, hashes: map[string]treeHash{}}
}

// hash returns the content hash of a file or directory tree (cached).
func (s *artifactSet) hash(p string) treeHash {
	if h, ok := s.hashes[p]; ok {
		return h
	}
	h := hashTree(p)
	s.hashes[p] = h
	return h
}

func hashTree(p string) treeHash {
	st, err := os.Stat(p)
	if err != nil {
		if os.IsNotExist(err) {
			return treeHash{missing: true}
		}
		return treeHash{err: err}
	}
	if !st.IsDir() {
		sum, size, err := sagemaker.HashFile(p)
		if err != nil {
			return treeHash{err: err}
		}
		return treeHash{sum: sum, size: size, files: []string{filepath.Base(p)}}
	}
	var files []string
	err = filepath.WalkDir(p, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if fp != p && (strings.HasPrefix(name, ".") || name == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".pyc") || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(p, fp)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return treeHash{err: err}
	}
	sort.Strings(files)
	h := sha256.New()
	var total int64
	for _, rel := range files {
		sum, size, err := sagemaker.HashFile(filepath.Join(p, filepath.FromSlash(rel)))
		if err != nil {
			return treeHash{err: err}
		}
		total += size
		fmt.Fprintf(h, "%s\x00%s\n", rel, sum)
	}
	return treeHash{sum: hex.EncodeToString(h.Sum(nil)), size: total, files: files, isDir: true}
}

func shortHash(sum string) string {
	if len(sum) > 16 {
		return sum[:16]
	}
	return sum
}

// add records local code used by step and returns its S3 URI. name is the
// object name under the hash folder ("train.py", "sourcedir.tar.gz"); for
// a directory the URI is the prefix (ending "/"). A missing local path is
// recorded as missing with a URI under code/<step>/, and a warning is the
// caller's business.
func (s *artifactSet) add(step, kind, local, name string) (string, *Artifact, error) {
	key := kind + "\x00" + local
	if a, ok := s.byKey[key]; ok {
		if len(a.Steps) == 0 || a.Steps[len(a.Steps)-1] != step {
			a.Steps = append(a.Steps, step)
		}
		return a.S3URI, a, nil
	}
	h := s.hash(local)
	if h.err != nil {
		return "", nil, &FileError{Path: local, What: "code path", Err: h.err}
	}
	a := &Artifact{Kind: kind, LocalPath: local, Steps: []string{step}}
	folder := shortHash(h.sum)
	if h.missing {
		a.Missing = true
		folder = "missing/" + step
	} else {
		a.SHA256, a.Size = h.sum, h.size
		if kind != KindFile {
			a.Files = h.files
		}
	}
	uri := s.codeBase + "/" + folder + "/"
	if kind != KindDirectory {
		uri += name
	}
	a.S3URI = uri
	s.byKey[key] = a
	s.order = append(s.order, key)
	return uri, a, nil
}

// addGenerated records generated content (named name, e.g.
// "data_sources_spec.json") under a content-addressed URI.
func (s *artifactSet) addGenerated(step, source, name string, content []byte) string {
	sum := sha256.Sum256(content)
	hexSum := hex.EncodeToString(sum[:])
	key := KindGenerated + "\x00" + hexSum + "\x00" + name
	if a, ok := s.byKey[key]; ok {
		if a.Steps[len(a.Steps)-1] != step {
			a.Steps = append(a.Steps, step)
		}
		return a.S3URI
	}
	a := &Artifact{Kind: KindGenerated, LocalPath: source, SHA256: hexSum, Size: int64(len(content)),
		S3URI: s.codeBase + "/" + shortHash(hexSum) + "/" + name, Steps: []string{step}, Content: content}
	s.byKey[key] = a
	s.order = append(s.order, key)
	return a.S3URI
}

// manifest returns the artifacts in the order they were first used.
func (s *artifactSet) manifest() Manifest {
	out := make(Manifest, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, *s.byKey[k])
	}
	return out
}
