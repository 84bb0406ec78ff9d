package catalog

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/stepcode"
)

// CodeDir is the directory that holds step code: scripts/ of package
// engine/stepcode (embedded) and scripts/ of a workspace directory, beside
// its step files.
const CodeDir = stepcode.Dir

// InferenceCodeDir is the directory of the code root that holds
// model-serving code, one subdirectory per framework
// (inference/xgboost/inference.py with model_fn, input_fn, predict_fn and
// output_fn, plus its helper modules).
const InferenceCodeDir = "inference"

// InferenceEntryPoint is the serving script of an inference code directory.
const InferenceEntryPoint = "inference.py"

// CodeLibDir is the package of the embedded code root that embedded
// scripts may import (from steplib import splits): helpers several
// scripts share. Bundle ships it with a script that uses it.
const CodeLibDir = "steplib"

// CodeEmbedded is the StepCode.Origin of code embedded in the binary.
const CodeEmbedded = "embedded"

// codeRoot is the embedded code the engine/stepcode package holds.
var codeRoot = stepcode.FS()

// Code returns the embedded code root, the file system of
// engine/stepcode's scripts/:
//
//	<entry_point>                  a Processing, Training or Tuning step's script
//	                               (xgboost_training.py; steps with the same entry
//	                               point share it)
//	inference/<framework>/         model-serving code (framework xgboost, pytorch,
//	                               lightgbm): inference.py and its helper modules,
//	                               used by Package (copied into the packaged
//	                               model.tar.gz under code/) and by CreateModel steps
//	steplib/                       helpers scripts share; Bundle adds it to a
//	                               script that imports it
//
// An embedded entry point is one file that imports at most steplib: the
// compiler uploads it alone, or with steplib as the job's code directory.
func Code() fs.FS { return codeRoot }

// InferenceCodePath returns the code-root path of a framework's serving
// code: inference/<framework>.
func InferenceCodePath(framework string) string { return InferenceCodeDir + "/" + framework }

// StepCode is one piece of code the catalog ships for a step: a file or a
// directory, embedded or in a workspace's scripts/ directory.
type StepCode struct {
	// Path is the slash-separated path relative to the code root
	// ("xgboost_training.py", "inference/xgboost").
	Path string `json:"path"`
	// Dir is true for a directory.
	Dir bool `json:"dir"`
	// Origin is CodeEmbedded or the absolute scripts/ directory of the
	// workspace the code comes from.
	Origin string `json:"origin"`
	// LocalPath is the code on disk (workspace code); "" for embedded code.
	LocalPath string `json:"local_path,omitempty"`
	// Files lists the regular files, sorted, relative to the code itself
	// (a file: its base name; a directory: paths below it). Dot files,
	// __pycache__ and *.pyc are left out.
	Files []string `json:"files"`
	// FS reads Files: it is rooted at the directory, or at a file's parent.
	FS fs.FS `json:"-"`
	// Requirements is the code-root path of the pip requirements file
	// WithRequirements added to the code as requirements.txt ("" when
	// none was added).
	Requirements string `json:"requirements,omitempty"`
}

// Source names the code for messages and manifests:
// "embedded:scripts/<path>" or its local path.
func (c StepCode) Source() string {
	if c.LocalPath != "" {
		return c.LocalPath
	}
	s := CodeEmbedded + ":" + CodeDir + "/" + c.Path
	if c.Requirements != "" {
		s += "+" + CodeDir + "/" + c.Requirements
	}
	return s
}

// RequirementsTxt is the file the SageMaker containers install with pip
// before they run a job's code: requirements.txt at the top of the
// training code (the training toolkit), of a processing job's code archive
// (the SDK's FrameworkProcessor launcher, and ours, runproc.py) and of a
// model's code/ (the inference toolkits).
const RequirementsTxt = "requirements.txt"

// WithRequirements returns embedded code with the embedded pip
// requirements file req (a path of the code root, a step's
// contract.requirements_file) added at its top as requirements.txt: a
// directory-shaped StepCode (a lone script becomes a directory of the
// script and the file) whose Requirements names req. Code that has a
// requirements.txt of its own keeps it, and code or a file that is not
// embedded is returned as it is (a workspace's code brings its own
// requirements.txt in its source directory). ok is false when req is not
// an embedded file.
func WithRequirements(code StepCode, req string) (StepCode, bool) {
	if req == "" {
		return code, true
	}
	rc, found := EmbeddedCode(req)
	if !found || rc.Dir {
		return code, false
	}
	if !code.Embedded() || code.Has(RequirementsTxt) {
		return code, true
	}
	files := append(append([]string(nil), code.Files...), RequirementsTxt)
	sort.Strings(files)
	out := code
	out.Dir, out.Files, out.Requirements = true, files, req
	out.FS = requirementsFS{FS: code.FS, req: req}
	return out, true
}

// requirementsFS is code's file system with requirements.txt read from a
// file of the embedded code root.
type requirementsFS struct {
	fs.FS
	req string
}

// Open opens requirements.txt from the embedded root, any other name from
// the code.
func (r requirementsFS) Open(name string) (fs.File, error) {
	if name == RequirementsTxt {
		return codeRoot.Open(r.req)
	}
	return r.FS.Open(name)
}

// Embedded reports whether the code is embedded in the binary.
func (c StepCode) Embedded() bool { return c.Origin == CodeEmbedded }

// ReadFile returns the bytes of one of Files.
func (c StepCode) ReadFile(rel string) ([]byte, error) {
	return fs.ReadFile(c.FS, rel)
}

// Has reports whether rel is one of Files.
func (c StepCode) Has(rel string) bool {
	i := sort.SearchStrings(c.Files, rel)
	return i < len(c.Files) && c.Files[i] == rel
}

// codeRoots returns the code roots of a step, first match wins: the
// scripts/ directory beside a workspace step's file, then the embedded
// root.
func (s *Step) codeRoots() []struct {
	origin string
	fsys   fs.FS
} {
	type root = struct {
		origin string
		fsys   fs.FS
	}
	var out []root
	if s.WorkspaceID != CoreWorkspace && s.Source != "" && !strings.HasPrefix(s.Source, CodeEmbedded+":") {
		dir := filepath.Join(filepath.Dir(s.Source), CodeDir)
		// os.Root, not os.DirFS: a symbolic link in scripts/ cannot lead
		// the code read out of it (the root closes when collected).
		if r, err := os.OpenRoot(dir); err == nil {
			out = append(out, root{dir, r.FS()})
		}
	}
	return append(out, root{CodeEmbedded, codeRoot})
}

// LookupCode finds code the catalog ships for the step at rel, a
// slash-separated path relative to a code root (a file or a directory): in
// the scripts/ directory beside a workspace step's file, then in the
// embedded root (Code). A directory with no files does not count. A
// project's own code is not looked up here; the compiler prefers it.
func (s *Step) LookupCode(rel string) (StepCode, bool) {
	rel = strings.TrimSuffix(path.Clean(strings.TrimPrefix(filepath.ToSlash(rel), "./")), "/")
	if rel == "." || rel == "" || !fs.ValidPath(rel) {
		return StepCode{}, false
	}
	for _, r := range s.codeRoots() {
		if c, ok := codeAt(r.fsys, r.origin, rel); ok {
			return c, true
		}
	}
	return StepCode{}, false
}

// EmbeddedCode returns the code the binary itself ships at rel, a
// slash-separated path of the embedded code root (Code), whatever any
// workspace holds: the compiler's own jobs (the model repack) run it.
func EmbeddedCode(rel string) (StepCode, bool) {
	if !fs.ValidPath(rel) {
		return StepCode{}, false
	}
	return codeAt(codeRoot, CodeEmbedded, rel)
}

// Bundle returns an embedded script together with the modules of the
// shared helper package (CodeLibDir) it imports: a directory-shaped
// StepCode whose Path is the script's and whose Files are the script,
// steplib/__init__.py and each steplib module it imports, directly or
// through another steplib module (from steplib import splits, tables;
// import steplib.metrics), rooted at the code root; a bare import steplib
// takes the whole package. A script that imports nothing of it, and any
// other code, is returned as it is. So a helper module's change
// re-uploads only the scripts that use it. The compiler uploads a bundle
// as the job's code directory (a training job's sourcedir.tar.gz), so the
// script runs from it with steplib beside it.
func Bundle(code StepCode) StepCode {
	if !code.Embedded() || code.Dir {
		return code
	}
	src, err := code.ReadFile(code.Files[0])
	if err != nil || !bytes.Contains(src, []byte(CodeLibDir)) {
		return code
	}
	lib, err := fs.Sub(codeRoot, CodeLibDir)
	if err != nil {
		return code
	}
	libFiles, err := codeFiles(lib)
	if err != nil || len(libFiles) == 0 {
		return code
	}
	mods, whole := libImports(src)
	if len(mods) == 0 && !whole {
		return code
	}
	keep := map[string]bool{"__init__.py": true}
	for len(mods) > 0 && !whole {
		m := mods[0]
		mods = mods[1:]
		name := m + ".py"
		if keep[name] {
			continue
		}
		keep[name] = true
		if b, err := fs.ReadFile(lib, name); err == nil {
			more, all := libImports(b)
			mods, whole = append(mods, more...), whole || all
		}
	}
	files := []string{code.Path}
	for _, f := range libFiles {
		if whole || keep[f] {
			files = append(files, CodeLibDir+"/"+f)
		}
	}
	sort.Strings(files)
	return StepCode{Path: code.Path, Dir: true, Origin: CodeEmbedded, Files: files, FS: codeRoot}
}

// libImports returns the steplib modules Python source imports, and
// whether it takes the whole package (import steplib, import steplib as
// x, from steplib import *). It reads the import statements line by line,
// joining the lines of a parenthesised name list or a backslash
// continuation, and skips every line that does not name steplib: the
// regular expressions it replaces scanned the whole of each script and
// were half of a compile's CPU time.
func libImports(src []byte) ([]string, bool) {
	var mods []string
	whole := false
	for rest := src; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if !bytes.Contains(line, []byte(CodeLibDir)) {
			continue
		}
		stmt := string(dropComment(line))
		if !isImport(stmt) {
			continue // a string or a comment that names steplib: not joined to what follows
		}
		// A continued statement: up to the closing parenthesis, or over
		// each line that ends in a backslash.
		open := strings.Count(stmt, "(") > strings.Count(stmt, ")")
		for len(rest) > 0 && (open && !strings.Contains(stmt, ")") || !open && strings.HasSuffix(stmt, "\\")) {
			var next []byte
			next, rest, _ = bytes.Cut(rest, []byte("\n"))
			stmt = strings.TrimSuffix(stmt, "\\") + " " + string(dropComment(next))
		}
		m, w := importsOfStatement(strings.TrimSpace(stmt))
		mods, whole = append(mods, m...), whole || w
	}
	return mods, whole
}

// importsOfStatement is libImports for one statement.
func importsOfStatement(stmt string) ([]string, bool) {
	if rest, ok := cutKeyword(stmt, "from"); ok {
		pkg, names, ok := strings.Cut(rest, " import")
		pkg = strings.TrimSpace(pkg)
		if !ok {
			return nil, false
		}
		if sub, ok := strings.CutPrefix(pkg, CodeLibDir+"."); ok {
			return []string{firstIdent(sub)}, false
		}
		if pkg != CodeLibDir {
			return nil, false
		}
		names = strings.Trim(strings.TrimSpace(names), "()")
		var mods []string
		for _, item := range strings.Split(names, ",") {
			switch f := strings.Fields(item); { // "splits" or "splits as sp"
			case len(f) == 0:
			case f[0] == "*":
				return mods, true
			default:
				mods = append(mods, f[0])
			}
		}
		return mods, false
	}
	rest, ok := cutKeyword(stmt, "import")
	if !ok {
		return nil, false
	}
	var mods []string
	whole := false
	for _, item := range strings.Split(rest, ",") { // import os, steplib.splits as sp
		f := strings.Fields(item)
		if len(f) == 0 {
			continue
		}
		if f[0] == CodeLibDir {
			whole = true
		} else if sub, ok := strings.CutPrefix(f[0], CodeLibDir+"."); ok {
			mods = append(mods, firstIdent(sub))
		}
	}
	return mods, whole
}

// isImport reports whether stmt is an import statement.
func isImport(stmt string) bool {
	_, from := cutKeyword(stmt, "from")
	_, imp := cutKeyword(stmt, "import")
	return from || imp
}

// cutKeyword returns what follows keyword and white space at the start of
// stmt.
func cutKeyword(stmt, keyword string) (string, bool) {
	rest, ok := strings.CutPrefix(stmt, keyword)
	if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return rest, true
}

// firstIdent is the leading Python identifier of s (a module's name
// before ".x" or white space).
func firstIdent(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end < 0 {
		return s
	}
	return s[:end]
}

// dropComment cuts a line's "# comment" (a '#' inside a string is taken for
// one too: an import statement holds no strings).
func dropComment(line []byte) []byte {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	return bytes.TrimSpace(line)
}

// Script returns the catalog's script for the step's entry point
// (contract.entry_point), when it ships one as a file.
func (s *Step) Script() (StepCode, bool) {
	if s.Contract.EntryPoint == "" {
		return StepCode{}, false
	}
	c, ok := s.LookupCode(s.Contract.EntryPoint)
	if !ok || c.Dir {
		return StepCode{}, false
	}
	return c, true
}

// InferenceCode returns the catalog's serving code for a framework
// (inference/<framework>), when it ships it with an inference.py. An
// empty framework means the step's own (Step.Framework).
func (s *Step) InferenceCode(framework string) (StepCode, bool) {
	if framework == "" {
		framework = s.Framework
	}
	if framework == "" || strings.ContainsAny(framework, "/\\.") {
		return StepCode{}, false
	}
	c, ok := s.LookupCode(InferenceCodePath(framework))
	if !ok || !c.Dir || !c.Has(InferenceEntryPoint) {
		return StepCode{}, false
	}
	return c, true
}

// InferenceFrameworkField is the config field that chooses a step's
// serving code (inference/<framework>) when the step declares it.
const InferenceFrameworkField = "inference_framework"

// ServingFramework returns the framework whose serving code the step
// uses, reading config values through get: field inference_framework when
// the step declares it and it is set, else the step's framework unless it
// is generic, else model_class.
func (s *Step) ServingFramework(get func(field string) string) string {
	if _, ok := s.Field(InferenceFrameworkField); ok {
		if fw := get(InferenceFrameworkField); fw != "" {
			return fw
		}
	}
	if s.Framework != "" && s.Framework != "generic" {
		return s.Framework
	}
	return get("model_class")
}

// LookupConfigCode finds the catalog's code for the relative path a config
// field names (Package's inference_scripts_dir): for a directory
// <rel>/<framework> first ("inference" -> inference/xgboost), then rel
// itself unless it is a root of per-framework serving code (it holds
// <framework>/inference.py but no inference.py of its own: another
// framework's code is not a stand-in); the kind (file or directory) must
// match.
func (s *Step) LookupConfigCode(rel, framework string, dir bool) (StepCode, bool) {
	rel = strings.TrimSuffix(filepath.ToSlash(rel), "/")
	if dir && framework != "" && !strings.ContainsAny(framework, "/\\.") {
		if code, ok := s.LookupCode(rel + "/" + framework); ok && code.Dir {
			return code, true
		}
	}
	code, ok := s.LookupCode(rel)
	if !ok || code.Dir != dir {
		return StepCode{}, false
	}
	if dir && !code.Has(InferenceEntryPoint) {
		for _, f := range code.Files {
			if path.Base(f) == InferenceEntryPoint {
				return StepCode{}, false
			}
		}
	}
	return code, true
}

// codeAt returns the code at rel in fsys.
func codeAt(fsys fs.FS, origin, rel string) (StepCode, bool) {
	st, err := fs.Stat(fsys, rel)
	if err != nil || skipCodeName(path.Base(rel), st.IsDir()) {
		return StepCode{}, false
	}
	c := StepCode{Path: rel, Dir: st.IsDir(), Origin: origin}
	if origin != CodeEmbedded {
		c.LocalPath = filepath.Join(origin, filepath.FromSlash(rel))
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			return StepCode{}, false
		}
		parent, err := fs.Sub(fsys, path.Dir(rel))
		if err != nil {
			return StepCode{}, false
		}
		c.FS, c.Files = parent, []string{path.Base(rel)}
		return c, true
	}
	sub, err := fs.Sub(fsys, rel)
	if err != nil {
		return StepCode{}, false
	}
	files, err := codeFiles(sub)
	if err != nil || len(files) == 0 {
		return StepCode{}, false
	}
	c.FS, c.Files = sub, files
	return c, true
}

// codeFiles lists the regular files of a code tree, sorted.
func codeFiles(fsys fs.FS) ([]string, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if skipCodeName(d.Name(), d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// skipCodeName reports names that are never code: dot files, Python
// caches.
func skipCodeName(name string, dir bool) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	if dir {
		return name == "__pycache__"
	}
	return strings.HasSuffix(name, ".pyc")
}
