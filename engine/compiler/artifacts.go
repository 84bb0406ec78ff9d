package compiler

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/internal/safefs"
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

// Artifact is one entry of the upload manifest: code the definition refers
// to by its S3 URI. For a file, SHA256 and Size are the file's; for a
// directory or a tarball they cover the source tree (SHA-256 over the
// sorted list of "<relative path>\x00<file sha256>\n" lines) and its total
// size, so the S3 key changes exactly when the code does. The bytes
// uploaded for a tarball are produced by Materialize.
//
// Code is the project's own (LocalPath on disk) or the catalog's
// (Embedded: catalog.Step.LookupCode found it and the project has none;
// LocalPath then names it, "embedded:scripts/<path>", and its bytes are
// held by the artifact). Either way the URI is the content hash's, so an
// identical project copy and embedded copy share one URI. ReadFile reads
// the bytes of any kind; Materialize turns the manifest into local files.
type Artifact struct {
	Kind      string                      `json:"kind"`
	LocalPath string                      `json:"local_path"`
	S3URI     string                      `json:"s3_uri"`
	SHA256    string                      `json:"sha256,omitempty"`
	Size      int64                       `json:"size"`
	Files     []string                    `json:"files,omitempty"` // for directories, tarballs and embedded code: relative paths, sorted
	Missing   bool                        `json:"missing,omitempty"`
	Embedded  bool                        `json:"embedded,omitempty"` // the catalog's code, not the project's
	Steps     []catalog.SageMakerStepName `json:"steps"`              // SageMaker steps that use it
	Content   []byte                      `json:"-"`                  // KindGenerated and an embedded KindFile: the bytes to upload
	source    fs.FS                       // Embedded: reads Files
}

// ReadFile returns the bytes of one of the artifact's files: rel is one of
// Files (for a local KindFile, or any KindGenerated, rel is ignored). It
// reads embedded code from the binary and project code through fsys (nil:
// the trusted file-access layer).
func (a Artifact) ReadFile(fsys *safefs.FS, rel string) ([]byte, error) {
	switch {
	case a.Content != nil:
		return a.Content, nil
	case a.source != nil:
		return fs.ReadFile(a.source, rel)
	case a.Kind == KindFile:
		return fsys.ReadFile(a.LocalPath, safefs.KindData)
	}
	if fsys.IsFile(a.LocalPath) {
		return fsys.ReadFile(a.LocalPath, safefs.KindData) // a tarball of a single file
	}
	return fsys.ReadFile(filepath.Join(a.LocalPath, filepath.FromSlash(rel)), safefs.KindData)
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
// uploads, every item a file in workDir (a private directory the caller
// made): project files and the files of project directories copied there
// through fsys (nil: the trusted file-access layer), tarballs packed there
// (deterministically: sorted entries, zero times and owners), generated
// and embedded code written there. The upload then reads only workDir, so
// a source path changed after compiling cannot make it send a file fsys
// may not read. It refuses a manifest with missing files.
func (m Manifest) Materialize(fsys *safefs.FS, workDir string) (sagemaker.Manifest, error) {
	if missing := m.MissingFiles(); len(missing) > 0 {
		return nil, &FileError{Path: strings.Join(missing, ", "), What: "code file(s) the definition refers to", Missing: true}
	}
	var out sagemaker.Manifest
	for i, a := range m {
		if a.Embedded {
			items, err := a.materializeEmbedded(fsys, workDir, i)
			if err != nil {
				return nil, err
			}
			out = append(out, items...)
			continue
		}
		switch a.Kind {
		case KindFile:
			dst := filepath.Join(workDir, fmt.Sprintf("file-%03d-%s", i, path.Base(a.S3URI)))
			if err := copyOut(fsys, a.LocalPath, dst); err != nil {
				return nil, &FileError{Path: a.LocalPath, What: "script", Err: err}
			}
			it, err := sagemaker.NewUploadItem(dst, a.S3URI)
			if err != nil {
				return nil, &FileError{Path: a.LocalPath, What: "script", Err: err}
			}
			out = append(out, it)
		case KindDirectory:
			for j, rel := range a.Files {
				dst := filepath.Join(workDir, fmt.Sprintf("dir-%03d-%04d-%s", i, j, path.Base(rel)))
				if err := copyOut(fsys, filepath.Join(a.LocalPath, filepath.FromSlash(rel)), dst); err != nil {
					return nil, &FileError{Path: a.LocalPath, What: "source directory", Err: err}
				}
				it, err := sagemaker.NewUploadItem(dst, strings.TrimSuffix(a.S3URI, "/")+"/"+rel)
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
			if err := writeTarball(fsys, dst, a); err != nil {
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

// materializeEmbedded writes embedded code into workDir: a file or a
// directory's files under embedded-<i>/, a tarball packed.
func (a Artifact) materializeEmbedded(fsys *safefs.FS, workDir string, i int) (sagemaker.Manifest, error) {
	fail := func(err error) (sagemaker.Manifest, error) {
		return nil, &FileError{Path: a.LocalPath, What: "embedded code", Err: err}
	}
	if a.Kind == KindSourceTarball {
		dst := filepath.Join(workDir, fmt.Sprintf("sourcedir-%03d-%s.tar.gz", i, shortHash(a.SHA256)))
		if err := writeTarball(fsys, dst, a); err != nil {
			return fail(err)
		}
		it, err := sagemaker.NewUploadItem(dst, a.S3URI)
		if err != nil {
			return fail(err)
		}
		return sagemaker.Manifest{it}, nil
	}
	dir := filepath.Join(workDir, fmt.Sprintf("embedded-%03d", i))
	var out sagemaker.Manifest
	for _, rel := range a.Files {
		data, err := a.ReadFile(fsys, rel)
		if err != nil {
			return fail(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return fail(err)
		}
		uri := a.S3URI
		if a.Kind == KindDirectory {
			uri = strings.TrimSuffix(a.S3URI, "/") + "/" + rel
		}
		it, err := sagemaker.NewUploadItem(dst, uri)
		if err != nil {
			return fail(err)
		}
		out = append(out, it)
	}
	return out, nil
}

// copyOut copies a file read through fsys to dst, a new file in a private
// directory.
func copyOut(fsys *safefs.FS, src, dst string) error {
	in, err := fsys.Open(src, safefs.KindData)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeTarball packs the artifact's files (project files read through
// fsys) into a gzip'ed tar at dst. A tarball of a single file holds that
// file at the archive root.
func writeTarball(fsys *safefs.FS, dst string, a Artifact) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, rel := range a.Files {
		data, err := a.ReadFile(fsys, rel)
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
	fs       *safefs.FS // where local code is read
	codeBase string     // S3 prefix for code: <pipeline_s3_loc>/code
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

func newArtifactSet(fsys *safefs.FS) *artifactSet {
	return &artifactSet{fs: fsys, byKey: map[string]*Artifact{}, hashes: map[string]treeHash{}}
}

// hash returns the content hash of a file or directory tree (cached).
func (s *artifactSet) hash(p string) treeHash {
	if h, ok := s.hashes[p]; ok {
		return h
	}
	h := hashTree(s.fs, p)
	s.hashes[p] = h
	return h
}

// hashTree hashes a file, or a directory's tree, read through fsys; a path
// fsys cannot reach is missing.
func hashTree(fsys *safefs.FS, p string) treeHash {
	st, err := fsys.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return treeHash{missing: true}
		}
		return treeHash{err: err}
	}
	if !st.IsDir() {
		sum, size, err := hashFile(fsys, p)
		if err != nil {
			return treeHash{err: err}
		}
		return treeHash{sum: sum, size: size, files: []string{filepath.Base(p)}}
	}
	var files []string
	err = fsys.WalkDir(p, func(fp string, d fs.DirEntry, err error) error {
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
		sum, size, err := hashFile(fsys, filepath.Join(p, filepath.FromSlash(rel)))
		if err != nil {
			return treeHash{err: err}
		}
		total += size
		fmt.Fprintf(h, "%s\x00%s\n", rel, sum)
	}
	return treeHash{sum: hex.EncodeToString(h.Sum(nil)), size: total, files: files, isDir: true}
}

// hashFile is the SHA-256 (lowercase hex) and size of a regular file read
// through fsys.
func hashFile(fsys *safefs.FS, p string) (string, int64, error) {
	f, err := fsys.Open(p, safefs.KindData)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
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
func (s *artifactSet) add(step catalog.SageMakerStepName, kind, local, name string) (string, *Artifact, error) {
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
	a := &Artifact{Kind: kind, LocalPath: local, Steps: []catalog.SageMakerStepName{step}}
	folder := shortHash(h.sum)
	if h.missing {
		a.Missing = true
		folder = "missing/" + string(step)
	} else {
		a.SHA256, a.Size = h.sum, h.size
		if kind != KindFile {
			a.Files = h.files
		}
	}
	a.S3URI = s.codeBase + "/" + folder + "/" + objectKey(kind, name)
	s.byKey[key] = a
	s.order = append(s.order, key)
	return a.S3URI, a, nil
}

// objectKey is the last part of an artifact's URI below its content-hash
// folder: the object's name, or for a directory its name as a folder of
// its own (<name>/), so that the prefix a job mounts holds the directory's
// files and never another artifact of the same content (a
// sourcedir.tar.gz packed from the same files lands beside it).
func objectKey(kind, name string) string {
	if kind != KindDirectory {
		return name
	}
	if name == "" || name == "." || name == "/" {
		return "files/"
	}
	return name + "/"
}

// addCode records the catalog's code for step (see catalog.StepCode):
// workspace code on disk as add does, embedded code with its bytes,
// under the same content-hash URI scheme.
func (s *artifactSet) addCode(step catalog.SageMakerStepName, kind string, code catalog.StepCode, name string) (string, *Artifact, error) {
	if !code.Embedded() {
		return s.add(step, kind, code.LocalPath, name)
	}
	key := kind + "\x00" + code.Source()
	if a, ok := s.byKey[key]; ok {
		if len(a.Steps) == 0 || a.Steps[len(a.Steps)-1] != step {
			a.Steps = append(a.Steps, step)
		}
		return a.S3URI, a, nil
	}
	a := &Artifact{Kind: kind, LocalPath: code.Source(), Embedded: true, Steps: []catalog.SageMakerStepName{step},
		Files: append([]string(nil), code.Files...), source: code.FS}
	h := sha256.New()
	for _, rel := range code.Files {
		data, err := code.ReadFile(rel)
		if err != nil {
			return "", nil, &FileError{Path: code.Source(), What: "embedded code", Err: err}
		}
		sum := sha256.Sum256(data)
		a.Size += int64(len(data))
		fmt.Fprintf(h, "%s\x00%s\n", rel, hex.EncodeToString(sum[:]))
		if !code.Dir {
			a.SHA256 = hex.EncodeToString(sum[:])
			if kind == KindFile {
				a.Content = data
			}
		}
	}
	if code.Dir || kind == KindDirectory { // a tree, as hashTree hashes a directory
		a.SHA256 = hex.EncodeToString(h.Sum(nil))
	}
	a.S3URI = s.codeBase + "/" + shortHash(a.SHA256) + "/" + objectKey(kind, name)
	s.byKey[key] = a
	s.order = append(s.order, key)
	return a.S3URI, a, nil
}

// addGenerated records generated content (named name, e.g.
// "data_sources_spec.json") under a content-addressed URI.
func (s *artifactSet) addGenerated(step catalog.SageMakerStepName, source, name string, content []byte) string {
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
		S3URI: s.codeBase + "/" + shortHash(hexSum) + "/" + name, Steps: []catalog.SageMakerStepName{step}, Content: content}
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
