package catalog

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/safefs"
)

// fileMessage is the cause of a file-access error without the operation
// and path (a FileError names the file itself).
func fileMessage(err error) string {
	var pe *safefs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

//go:embed steps/*.step.yaml fieldsets/*.yaml
var embedded embed.FS

// CoreWorkspace is the WorkspaceID of every embedded step.
const CoreWorkspace = "core"

// StepFileSuffix is the suffix of a step-interface file name.
const StepFileSuffix = ".step.yaml"

// FieldSet is one shared set of config fields, resolved through its
// extends chain (the fields of the sets it extends come first).
type FieldSet struct {
	Name        string        `json:"name"`
	Extends     string        `json:"extends,omitempty"`
	Chain       []string      `json:"chain"` // root first, this set last
	Description string        `json:"description"`
	Fields      []ConfigField `json:"fields"`
	File        string        `json:"file"`
}

// Catalog is a loaded, validated, read-only set of step types. It is safe
// for concurrent use.
type Catalog struct {
	steps      map[StepType]*Step
	sorted     []*Step
	names      []StepType
	fieldSets  map[string]*FieldSet
	byKey      map[string]StepType // canonical key of names and aliases
	index      searchIndex
	workspaces []string
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error

	cacheMu   sync.Mutex
	cache     = map[string]*cachedCatalog{}
	cacheTick uint64 // bumped on every cache use, for least-recently-used eviction
)

// maxCachedWorkspaces bounds the workspace catalog cache. A long-running
// server sees many directory sets (project.init loads a fresh temporary
// workspace on every call); without a bound each would stay cached forever.
const maxCachedWorkspaces = 32

type cachedCatalog struct {
	fingerprint string
	cat         *Catalog
	used        uint64
}

// Default returns the catalog of embedded step types. It is loaded and
// validated once; later calls return the same value.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() { defaultCat, defaultErr = loadEmbedded() })
	return defaultCat, defaultErr
}

// Load returns the embedded catalog extended with the *.step.yaml files at
// the top level of each workspace directory, in order, read through fsys
// (nil: the trusted file-access layer; relative directories are taken as
// fsys takes them, and a directory or file fsys cannot reach is a
// *FileError). A workspace step adds a new type or replaces an embedded (or
// earlier workspace) type of the same name. With no directories it returns
// Default(). Results are cached per directory set and reused while no step
// file in those directories changes (name, size or modification time); the
// directories are listed through fsys on every call, so a cached catalog is
// never handed to a caller who cannot read its files.
func Load(fsys *safefs.FS, workspaceDirs ...string) (*Catalog, error) {
	base, err := Default()
	if err != nil {
		return nil, err
	}
	dirs := make([]string, 0, len(workspaceDirs))
	for _, d := range workspaceDirs {
		if strings.TrimSpace(d) == "" {
			continue
		}
		abs, err := fsys.Abs(d)
		if err != nil {
			return nil, &FileError{File: d, Message: fileMessage(err)}
		}
		dirs = append(dirs, abs)
	}
	if len(dirs) == 0 {
		return base, nil
	}
	key := strings.Join(dirs, "\x00")
	fp, files, err := fingerprint(fsys, dirs)
	if err != nil {
		return nil, err
	}
	cacheMu.Lock()
	if c, ok := cache[key]; ok && c.fingerprint == fp {
		cacheTick++
		c.used = cacheTick
		cacheMu.Unlock()
		return c.cat, nil
	}
	cacheMu.Unlock()

	cat, err := extend(fsys, base, dirs, files)
	if err != nil {
		return nil, err
	}
	cacheMu.Lock()
	if _, ok := cache[key]; !ok && len(cache) >= maxCachedWorkspaces {
		evictLeastRecentlyUsed()
	}
	cacheTick++
	cache[key] = &cachedCatalog{fingerprint: fp, cat: cat, used: cacheTick}
	cacheMu.Unlock()
	return cat, nil
}

// evictLeastRecentlyUsed drops the cache entry used longest ago. The caller
// holds cacheMu.
func evictLeastRecentlyUsed() {
	oldest, key := uint64(0), ""
	for k, c := range cache {
		if key == "" || c.used < oldest {
			oldest, key = c.used, k
		}
	}
	delete(cache, key)
}

// fingerprint lists the step files of each directory and summarises them.
func fingerprint(fsys *safefs.FS, dirs []string) (string, [][]string, error) {
	var b strings.Builder
	files := make([][]string, len(dirs))
	for i, d := range dirs {
		st, err := fsys.Stat(d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", nil, &FileError{File: d, Message: "workspace directory does not exist"}
			}
			return "", nil, &FileError{File: d, Message: fileMessage(err)}
		}
		if !st.IsDir() {
			return "", nil, &FileError{File: d, Message: "workspace path is not a directory"}
		}
		entries, err := fsys.ReadDir(d)
		if err != nil {
			return "", nil, &FileError{File: d, Message: fileMessage(err)}
		}
		fmt.Fprintf(&b, "%s\n", d)
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), StepFileSuffix) || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			info, err := e.Info()
			if err != nil {
				return "", nil, &FileError{File: filepath.Join(d, e.Name()), Message: err.Error()}
			}
			files[i] = append(files[i], filepath.Join(d, e.Name()))
			fmt.Fprintf(&b, " %s %d %d\n", e.Name(), info.Size(), info.ModTime().UnixNano())
		}
	}
	return b.String(), files, nil
}

// loadEmbedded parses, resolves and validates the embedded files.
func loadEmbedded() (*Catalog, error) {
	setFiles, errs := readFiles(embedded, "fieldsets", ".yaml")
	stepFiles, serrs := readFiles(embedded, "steps", StepFileSuffix)
	errs = append(errs, serrs...)
	if len(errs) > 0 {
		return nil, errs
	}
	var (
		decodedSets []decodedFieldSet
		jobs        = make([]parseJob, len(stepFiles))
	)
	for i, r := range stepFiles {
		jobs[i] = parseJob{file: r.name, data: r.data}
	}
	for _, r := range setFiles {
		var f FieldSetFile
		if err := decodeStrict(r.name, r.data, &f); err != nil {
			errs = append(errs, Problems(err)...)
			continue
		}
		decodedSets = append(decodedSets, decodedFieldSet{r.name, &f})
	}
	sets, serrs2 := resolveFieldSets(decodedSets)
	errs = append(errs, serrs2...)
	if len(errs) > 0 {
		return nil, errs
	}
	parseAll(jobs, sets)
	steps := map[StepType]*Step{}
	for _, j := range jobs {
		errs = append(errs, j.errs...)
		st := j.step
		if st == nil {
			continue
		}
		st.setOrigin("embedded:"+j.file, CoreWorkspace, "")
		if prev, dup := steps[st.Type]; dup {
			errs = append(errs, &FileError{File: j.file, Field: "step", Message: fmt.Sprintf("step %q is already declared by %s", st.Type, prev.Source)})
			continue
		}
		steps[st.Type] = st
	}
	if len(errs) > 0 {
		return nil, errs
	}
	cat := newCatalog(steps, sets, nil)
	if errs := cat.crossCheck(func(*Step) bool { return true }); len(errs) > 0 {
		return nil, errs
	}
	return cat, nil
}

// extend builds a catalog from base plus workspace files.
func extend(fsys *safefs.FS, base *Catalog, dirs []string, files [][]string) (*Catalog, error) {
	var errs LoadErrors
	steps := make(map[StepType]*Step, len(base.steps)+8)
	for k, v := range base.steps {
		steps[k] = v
	}
	added := map[*Step]string{} // workspace step -> its directory
	for i, d := range dirs {
		wsID := filepath.Base(d)
		jobs := make([]parseJob, 0, len(files[i]))
		for _, f := range files[i] {
			data, err := fsys.ReadFile(f, safefs.KindStep)
			if err != nil {
				errs = append(errs, &FileError{File: f, Message: fileMessage(err)})
				continue
			}
			jobs = append(jobs, parseJob{file: f, data: data})
		}
		parseAll(jobs, base.fieldSets)
		for _, j := range jobs {
			errs = append(errs, j.errs...)
			st := j.step
			if st == nil {
				continue
			}
			overrides := ""
			if prev, ok := steps[st.Type]; ok {
				if added[prev] == d {
					errs = append(errs, &FileError{File: j.file, Field: "step", Message: fmt.Sprintf("step %q is already declared by %s", st.Type, prev.Source)})
					continue
				}
				overrides = prev.Source
			}
			st.setOrigin(j.file, wsID, overrides)
			steps[st.Type] = st
			added[st] = d
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	cat := newCatalog(steps, base.fieldSets, dirs)
	if errs := cat.crossCheck(func(s *Step) bool { return added[s] != "" }); len(errs) > 0 {
		return nil, errs
	}
	return cat, nil
}

// newCatalog builds the indexes of a catalog.
func newCatalog(steps map[StepType]*Step, sets map[string]*FieldSet, dirs []string) *Catalog {
	c := &Catalog{steps: steps, fieldSets: sets, workspaces: dirs, byKey: map[string]StepType{}}
	for _, s := range steps {
		c.sorted = append(c.sorted, s)
	}
	sort.Slice(c.sorted, func(i, j int) bool { return c.sorted[i].Type < c.sorted[j].Type })
	c.names = make([]StepType, len(c.sorted))
	for i, s := range c.sorted {
		c.names[i] = s.Type
		c.byKey[CanonicalKey(string(s.Type))] = s.Type
	}
	// Aliases never shadow a real step name.
	for _, s := range c.sorted {
		for _, a := range s.Aliases {
			k := CanonicalKey(a)
			if _, taken := c.byKey[k]; !taken {
				c.byKey[k] = s.Type
			}
		}
	}
	c.index = buildIndex(c.sorted)
	return c
}

// rawFile is one embedded or workspace file: its name and bytes.
type rawFile struct {
	name string
	data []byte
}

// readFiles reads the files of dir in fsys whose names end in suffix,
// sorted by name.
func readFiles(fsys fs.FS, dir, suffix string) ([]rawFile, LoadErrors) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, LoadErrors{{File: dir, Message: err.Error()}}
	}
	var out []rawFile
	var errs LoadErrors
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, &FileError{File: e.Name(), Message: err.Error()})
			continue
		}
		out = append(out, rawFile{e.Name(), data})
	}
	return out, errs
}

// decodedFieldSet is a field-set file decoded from YAML.
type decodedFieldSet struct {
	file string
	set  *FieldSetFile
}

// loadFieldSets parses every *.yaml in dir of fsys and resolves extends.
func loadFieldSets(fsys fs.FS, dir string) (map[string]*FieldSet, LoadErrors) {
	raw, errs := readFiles(fsys, dir, ".yaml")
	if len(errs) > 0 {
		return nil, errs
	}
	var decoded []decodedFieldSet
	for _, r := range raw {
		var f FieldSetFile
		if err := decodeStrict(r.name, r.data, &f); err != nil {
			errs = append(errs, Problems(err)...)
			continue
		}
		decoded = append(decoded, decodedFieldSet{r.name, &f})
	}
	sets, rerrs := resolveFieldSets(decoded)
	return sets, append(errs, rerrs...)
}

// resolveFieldSets checks decoded field-set files and resolves extends.
func resolveFieldSets(decoded []decodedFieldSet) (map[string]*FieldSet, LoadErrors) {
	var errs LoadErrors
	files := map[string]*FieldSetFile{}
	fileOf := map[string]string{}
	for _, d := range decoded {
		name, f := d.file, d.set
		c := &collector{file: name}
		if f.Name == "" {
			c.add("name", "is required")
		} else if want := strings.TrimSuffix(name, ".yaml"); f.Name != want {
			c.add("name", "is %q but the file is named %s; the set name must equal the file stem %q", f.Name, name, want)
		}
		if strings.TrimSpace(f.Description) == "" {
			c.add("description", "is required")
		}
		if len(c.errs) > 0 {
			errs = append(errs, c.errs...)
			continue
		}
		files[f.Name] = f
		fileOf[f.Name] = name
	}
	sets := map[string]*FieldSet{}
	var resolve func(name string, seen []string) *FieldSet
	resolve = func(name string, seen []string) *FieldSet {
		if s, ok := sets[name]; ok {
			return s
		}
		f := files[name]
		for _, x := range seen {
			if x == name {
				errs = append(errs, &FileError{File: fileOf[name], Field: "extends", Message: "field sets extend each other in a cycle: " + strings.Join(append(seen, name), " -> ")})
				return nil
			}
		}
		var parent []ConfigField
		chain := []string{}
		if f.Extends != "" {
			if _, ok := files[f.Extends]; !ok {
				errs = append(errs, &FileError{File: fileOf[name], Field: "extends", Message: fmt.Sprintf("unknown field set %q (known: %s)", f.Extends, strings.Join(mapkeys.Sorted(files), ", "))})
				return nil
			}
			p := resolve(f.Extends, append(seen, name))
			if p == nil {
				return nil
			}
			parent = p.Fields
			chain = append(chain, p.Chain...)
		}
		c := &collector{file: fileOf[name]}
		fields := mergeFields(c, parent, f.Fields, "fieldset:"+name)
		validateFields(c, fields, "fieldset:"+name, f.Fields)
		if len(c.errs) > 0 {
			errs = append(errs, c.errs...)
			return nil
		}
		s := &FieldSet{Name: name, Extends: f.Extends, Chain: append(chain, name), Description: strings.TrimSpace(f.Description), Fields: fields, File: fileOf[name]}
		sets[name] = s
		return s
	}
	for _, name := range mapkeys.Sorted(files) {
		resolve(name, nil)
	}
	return sets, errs
}

// ParseStepFile parses and validates one step file against the embedded
// field sets without adding it to any catalog. Cross-step checks
// (compatible sources, alias clashes) are not applied; Load applies them.
// file is used in error messages and to check the file name.
func ParseStepFile(file string, data []byte) (*Step, error) {
	base, err := Default()
	if err != nil {
		return nil, err
	}
	st, errs := parseStep(file, data, base.fieldSets)
	if len(errs) > 0 {
		return nil, errs
	}
	return st, nil
}

// mergeFields applies decls over inherited fields: a declaration with a
// known name changes only the attributes it writes; a new name appends.
func mergeFields(c *collector, inherited []ConfigField, decls []FieldDecl, source string) []ConfigField {
	out := make([]ConfigField, len(inherited), len(inherited)+len(decls))
	copy(out, inherited)
	pos := map[string]int{}
	for i, f := range out {
		pos[f.Name] = i
	}
	seen := map[string]int{}
	for i, d := range decls {
		p := fieldPath(i)
		if d.Name == "" {
			c.add(p+".name", "is required")
			continue
		}
		if j, dup := seen[d.Name]; dup {
			c.add(p+".name", "field %q is declared twice (also fields[%d])", d.Name, j)
			continue
		}
		seen[d.Name] = i
		def, err := d.defaultValue()
		if err != nil {
			c.add(p+".default", "%v", err)
			continue
		}
		if j, ok := pos[d.Name]; ok {
			f := out[j]
			if d.Type != "" {
				f.Type = d.Type
			}
			if d.Tier != "" {
				f.Tier = d.Tier
			}
			switch {
			case d.hasDefault():
				f.Default = def
			case d.Derive != "" || f.Tier == TierEssential || f.Tier == TierDerived:
				f.Default = nil // essential and derived fields never keep an inherited default
			}
			switch {
			case d.Derive != "":
				f.Derivation = d.Derive
			case d.hasDefault() || f.Tier == TierEssential:
				f.Derivation = "" // an explicit default replaces a dynamic one
			}
			if d.Allowed != nil {
				al, err := d.allowedValues()
				if err != nil {
					c.add(p+".allowed", "%v", err)
				}
				f.Allowed = al
			}
			if d.Min != nil {
				f.Min = d.Min
			}
			if d.Max != nil {
				f.Max = d.Max
			}
			if d.Pattern != "" {
				f.Pattern = d.Pattern
			}
			if d.Description != "" {
				f.Description = strings.TrimSpace(d.Description)
			}
			if d.Hyperparameter != nil {
				f.Hyperparameter = *d.Hyperparameter
			}
			f.Source = source
			out[j] = f
			continue
		}
		al, err := d.allowedValues()
		if err != nil {
			c.add(p+".allowed", "%v", err)
		}
		f := ConfigField{
			Name: d.Name, Type: d.Type, Tier: d.Tier, Default: def, Allowed: al,
			Min: d.Min, Max: d.Max, Pattern: d.Pattern, Derivation: d.Derive,
			Description: strings.TrimSpace(d.Description), Source: source,
			Hyperparameter: d.Hyperparameter != nil && *d.Hyperparameter,
		}
		if f.Type == "" {
			f.Type = FieldString
		}
		if f.Tier == "" {
			f.Tier = TierSystem
		}
		pos[d.Name] = len(out)
		out = append(out, f)
	}
	return out
}

func normalizeList(in []any) []any {
	if in == nil {
		return nil
	}
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = normalizeYAML(v)
	}
	return out
}

// fieldPath is "fields[i]" (precomputed for small i: it is built for every
// declaration, not only for errors).
func fieldPath(i int) string {
	if i < len(fieldPaths) {
		return fieldPaths[i]
	}
	return fmt.Sprintf("fields[%d]", i)
}

var fieldPaths = func() []string {
	out := make([]string, 64)
	for i := range out {
		out[i] = fmt.Sprintf("fields[%d]", i)
	}
	return out
}()

// setOrigin records where the step came from, on the step and its
// job-type views.
func (s *Step) setOrigin(source, workspace, overrides string) {
	s.Source, s.WorkspaceID, s.Overrides = source, workspace, overrides
	for _, v := range s.variants {
		v.Source, v.WorkspaceID, v.Overrides = source, workspace, overrides
	}
}

// parseJob is one step file to parse; parseAll fills step and errs.
type parseJob struct {
	file string
	data []byte // YAML
	step *Step
	errs LoadErrors
}

// run decodes and builds the step.
func (j *parseJob) run(sets map[string]*FieldSet) {
	j.step, j.errs = parseStep(j.file, j.data, sets)
}

// parseAll parses the jobs on up to GOMAXPROCS goroutines. Results stay in
// job order, so errors are reported deterministically.
func parseAll(jobs []parseJob, sets map[string]*FieldSet) {
	workers := runtime.GOMAXPROCS(0)
	if workers > len(jobs) {
		workers = len(jobs)
	}
	if workers <= 1 {
		for i := range jobs {
			jobs[i].run(sets)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				jobs[i].run(sets)
			}
		}()
	}
	wg.Wait()
}

// parseStep decodes, resolves and validates one step file.
func parseStep(file string, data []byte, sets map[string]*FieldSet) (*Step, LoadErrors) {
	var sf StepFile
	if err := decodeStrict(file, data, &sf); err != nil {
		return nil, Problems(err)
	}
	c := &collector{file: file}
	st := buildStep(c, file, &sf, sets)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return st, nil
}

// buildStep turns a decoded file into a *Step, filling defaults and
// validating everything that can be checked without the other steps.
func buildStep(c *collector, file string, sf *StepFile, sets map[string]*FieldSet) *Step {
	st := &Step{
		Type:        StepType(strings.TrimSpace(sf.Step)),
		Verb:        sf.Verb,
		Kind:        sf.Kind,
		Description: strings.TrimSpace(sf.Description),
		Framework:   sf.Framework,
		ConfigClass: sf.ConfigClass,
		BuilderName: sf.Builder,
		Aliases:     sf.Aliases,
		Keywords:    sf.Keywords,
		Patterns:    sf.Patterns,
		Compute:     sf.Compute,
		Contract:    sf.Contract,
		Inputs:      sf.Inputs,
		Outputs:     sf.Outputs,
	}
	validateHeader(c, file, sf, st)

	// Field sets: the named sets (or the verb's default set), each with its
	// extends chain, deduplicated, root first.
	names := sf.FieldSets
	if len(names) == 0 {
		if d := verbInfo(st.Verb).FieldSet; d != "" {
			names = []string{d}
		}
	}
	var inherited []ConfigField
	seenSet := map[string]bool{}
	for i, n := range names {
		fsd, ok := sets[n]
		if !ok {
			c.add(fmt.Sprintf("field_sets[%d]", i), "unknown field set %q (known: %s)", n, strings.Join(mapkeys.Sorted(sets), ", "))
			continue
		}
		for _, link := range fsd.Chain {
			if seenSet[link] {
				continue
			}
			seenSet[link] = true
			st.FieldSets = append(st.FieldSets, link)
		}
	}
	// A set's resolved Fields already include its parents, so one named set
	// is its own field list; several are merged in order (later sets
	// override earlier ones by name).
	if len(names) == 1 && len(c.errs) == 0 {
		inherited = sets[names[0]].Fields
	} else {
		for _, n := range names {
			if fs, ok := sets[n]; ok {
				inherited = overlay(inherited, fs.Fields)
			}
		}
	}
	st.Fields = mergeFields(c, inherited, sf.Fields, "step")
	applyDefaults(st)
	validateFields(c, st.Fields, "step", sf.Fields)
	validateHyperparameters(c, st, sf.Fields)
	validatePorts(c, st)
	validateCompute(c, st)
	validateContract(c, st)
	validatePatterns(c, st)
	st.JobTypes = append([]string(nil), sf.JobTypes...)
	buildVariants(c, st, sf)
	st.fieldIndex = make(map[string]int, len(st.Fields))
	for i, f := range st.Fields {
		st.fieldIndex[f.Name] = i
	}
	for _, v := range st.variants {
		v.fieldIndex = st.fieldIndex
	}
	return st
}

// overlay merges fields by name: later ones replace earlier ones in place.
func overlay(base, top []ConfigField) []ConfigField {
	out := append([]ConfigField(nil), base...)
	pos := map[string]int{}
	for i, f := range out {
		pos[f.Name] = i
	}
	for _, f := range top {
		if j, ok := pos[f.Name]; ok {
			out[j] = f
			continue
		}
		pos[f.Name] = len(out)
		out = append(out, f)
	}
	return out
}

// sdkFramework is the image framework of each SDK class.
var sdkFramework = map[string]string{
	"XGBoost": "xgboost", "XGBoostModel": "xgboost", "PyTorch": "pytorch", "PyTorchModel": "pytorch",
	"SKLearn": "sklearn", "SKLearnModel": "sklearn",
}

// applyDefaults fills compute, contract, port and naming defaults.
func applyDefaults(st *Step) {
	has := func(name string) bool {
		for _, f := range st.Fields {
			if f.Name == name {
				return true
			}
		}
		return false
	}
	set := func(dst *string, v string) {
		if *dst == "" && v != "" && has(v) {
			*dst = v
		}
	}
	d := verbInfo(st.Verb).Defaults
	cp := &st.Compute
	switch cp.Kind {
	case "sklearn":
		if cp.Framework == "" {
			cp.Framework = "sklearn"
		}
		set(&cp.FrameworkVersionField, "processing_framework_version")
	case "xgboost":
		if cp.Framework == "" {
			cp.Framework = "xgboost"
		}
	case "framework":
		if cp.SDKClass == "SKLearn" {
			if cp.Framework == "" {
				cp.Framework = "sklearn"
			}
			set(&cp.FrameworkVersionField, "processing_framework_version")
		} else {
			if cp.Framework == "" {
				cp.Framework = sdkFramework[cp.SDKClass]
			}
			set(&cp.FrameworkVersionField, "framework_version")
			set(&cp.PyVersionField, "py_version")
		}
	case "estimator", "tuner", "model":
		if cp.Framework == "" {
			cp.Framework = sdkFramework[cp.SDKClass]
		}
	case "byo_container":
		// The step's own image, never a looked-up framework image.
		cp.Framework = "none"
		set(&cp.ImageURIField, "image_uri")
	}
	if cp.Framework == "" && d.Framework != "" {
		cp.Framework = d.Framework
	}
	if cp.Framework != "none" {
		set(&cp.FrameworkVersionField, d.FwVersion)
		set(&cp.PyVersionField, d.PyVersion)
		set(&cp.ImageURIField, "image_uri")
		if cp.ImageScope == "" {
			cp.ImageScope = d.ImageScope
		}
	}
	if cp.InstanceTypeField == "" {
		set(&cp.LargeInstanceTypeField, d.LargeType)
		set(&cp.SmallInstanceTypeField, d.SmallType)
		set(&cp.UseLargeInstanceField, d.UseLarge)
		set(&cp.InstanceTypeField, d.InstanceType)
	}
	set(&cp.InstanceCountField, d.Count)
	set(&cp.VolumeSizeField, d.Vol)
	set(&cp.MaxRuntimeField, d.MaxRuntime)

	ct := &st.Contract
	if ct.EntryPoint != "" {
		set(&ct.EntryPointField, d.EntryPoint)
	}
	if ct.EntryPoint != "" || verbInfo(st.Verb).Script == ScriptServing {
		set(&ct.SourceDirField, d.SourceDir)
	}
	ct.RequiredEnv = nil
	ct.OptionalEnv = map[string]string{}
	for i := range ct.Env {
		e := &ct.Env[i]
		if e.Field == "" && has(strings.ToLower(e.Name)) {
			e.Field = strings.ToLower(e.Name)
		}
		if !e.Required && e.Default == "" && e.Field != "" {
			if f, ok := fieldByName(st.Fields, e.Field); ok && f.Default != nil {
				e.Default = EnvValue(f.Default)
			}
		}
		if e.Required {
			ct.RequiredEnv = append(ct.RequiredEnv, e.Name)
		} else {
			ct.OptionalEnv[e.Name] = e.Default
		}
	}
	if ct.JobArguments == nil {
		ct.JobArguments = []JobArgument{}
	}
	if ct.RequiredEnv == nil {
		ct.RequiredEnv = []string{}
	}
	if st.Verb == VerbProcessing && st.Patterns.StepAssembly == "" {
		st.Patterns.StepAssembly = "code"
	}
	for i := range st.Inputs {
		if st.Inputs[i].DataType == "" {
			st.Inputs[i].DataType = "S3Uri"
		}
		if st.Inputs[i].CompatibleSources == nil {
			st.Inputs[i].CompatibleSources = []string{}
		}
		if st.Inputs[i].SemanticKeywords == nil {
			st.Inputs[i].SemanticKeywords = []string{}
		}
	}
	for i := range st.Outputs {
		if st.Verb == VerbProcessing && st.Outputs[i].PropertyPath == "" && st.Outputs[i].LogicalName != "" {
			st.Outputs[i].PropertyPath = ProcessingPropertyPath(st.Outputs[i].LogicalName)
		}
		if st.Outputs[i].DataType == "" {
			st.Outputs[i].DataType = "S3Uri"
		}
		if st.Outputs[i].Aliases == nil {
			st.Outputs[i].Aliases = []string{}
		}
	}
	if st.Inputs == nil {
		st.Inputs = []InputPort{}
	}
	if st.Outputs == nil {
		st.Outputs = []OutputPort{}
	}
	if st.ConfigClass == "" && st.Type != "" {
		st.ConfigClass = string(st.Type) + "Config"
	}
	if st.BuilderName == "" && st.Type != "" {
		st.BuilderName = string(st.Type) + "StepBuilder"
	}
}
