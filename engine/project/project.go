package project

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/safefs"
)

// Framework is one project flavour: which catalog steps train and evaluate.
type Framework struct {
	Name       string           `json:"name"`
	Training   catalog.StepType `json:"training_step"`
	Evaluation catalog.StepType `json:"evaluation_step"`
	ModelClass string           `json:"model_class"`
}

// Frameworks lists the frameworks Init scaffolds, by name.
var Frameworks = map[string]Framework{
	"xgboost":  {Name: "xgboost", Training: "XGBoostTraining", Evaluation: "XGBoostModelEval", ModelClass: "xgboost"},
	"pytorch":  {Name: "pytorch", Training: "PyTorchTraining", Evaluation: "PyTorchModelEval", ModelClass: "pytorch"},
	"lightgbm": {Name: "lightgbm", Training: "LightGBMTraining", Evaluation: "LightGBMModelEval", ModelClass: "lightgbm"},
}

// FrameworkNames returns the framework names, sorted.
func FrameworkNames() []string {
	out := make([]string, 0, len(Frameworks))
	for k := range Frameworks {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Layout: the paths of a project, relative to its directory.
const (
	StepsDir   = "steps"
	ScriptsDir = "scripts"
	ConfigDir  = "pipeline_config"
	DAGFile    = "pipeline_config/dag.json"
	ConfigFile = "pipeline_config/config.json"
	SampleData = "data/sample.csv"
	ReadmeFile = "README.md"
	LedgerFile = "ACTION_ITEMS.md"
)

// Typed errors of Init.
var (
	// ErrInvalidName is returned (wrapped) for a name Init refuses.
	ErrInvalidName = errkind.New(errkind.InvalidInput, "invalid project name")
	// ErrUnknownFramework is returned (wrapped) for a framework Init does not scaffold.
	ErrUnknownFramework = errkind.New(errkind.InvalidInput, "unknown framework")
)

// ExistsError reports a target directory that already exists.
type ExistsError struct{ Path string }

// Error implements error.
func (e *ExistsError) Error() string { return "project directory already exists: " + e.Path }

// Kind implements errkind.Kinded: AlreadyExists.
func (e *ExistsError) Kind() errkind.Kind { return errkind.AlreadyExists }

// Details implements errkind.Detailer: the directory.
func (e *ExistsError) Details() map[string]any { return map[string]any{"target_path": e.Path} }

var reName = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]*$`)

// CheckName validates a project name: a bare name (no path separator, not
// "." or ".."), starting with a letter, of letters, digits, '_' and '-', at
// most 64 characters (so the custom step's PascalCase name is valid).
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty", ErrInvalidName)
	case name == "." || name == "..":
		return fmt.Errorf("%w: %q is not a name", ErrInvalidName, name)
	case strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, filepath.Separator):
		return fmt.Errorf("%w: %q contains a path separator; give a bare name", ErrInvalidName, name)
	case len(name) > 64:
		return fmt.Errorf("%w: %q is longer than 64 characters", ErrInvalidName, name)
	case !reName().MatchString(name):
		return fmt.Errorf("%w: %q must start with a letter and hold only letters, digits, '_' and '-'", ErrInvalidName, name)
	}
	return nil
}

// PascalName is the name in PascalCase: split on '_' and '-', each part's
// first letter upper-cased (the pipeline class's name).
func PascalName(name string) string {
	var b strings.Builder
	for _, p := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' }) {
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

// DirName is the project directory name, <name>_<framework>.
func DirName(name, framework string) string { return name + "_" + framework }

// CustomStepName is the project's custom step type, <Pascal name>FeatureEngineering.
func CustomStepName(name string) catalog.StepType {
	return catalog.StepType(PascalName(name) + "FeatureEngineering")
}

// TemplateFunc returns the config template of a DAG: values shaped like
// config.merge_save's base and per-node steps, essential field paths still
// blank ("base.<field>", "<node>.<field>") and nodes without a config class.
// A nil TemplateFunc, or a nil template with a nil error, falls back to the
// engine's own (config.Schema.Template over the embedded catalog).
type TemplateFunc func(ctx context.Context, nodes []catalog.NodeName, edges [][]catalog.NodeName) (*Template, error)

// Template is what a TemplateFunc returns.
type Template struct {
	Base      map[string]any
	Steps     map[catalog.NodeName]map[string]any
	Essential []string
	Pending   []catalog.NodeName
	Source    string // where it came from, e.g. "config.template"
}

// InitOptions describes a scaffold.
type InitOptions struct {
	Name      string
	Framework string
	// Parent is the directory the project directory is created in
	// (absolute, already confined by the caller).
	Parent    string
	Overwrite bool
	// Template supplies the config template (nil: the engine's own,
	// config.Schema.Template over the embedded catalog).
	Template TemplateFunc
	// Now stamps the files (time.Now when nil).
	Now func() time.Time
}

// Result describes a written project.
type Result struct {
	Project      string                                 `json:"project"`
	Framework    string                                 `json:"framework"`
	TargetPath   string                                 `json:"target_path"`
	WorkspaceDir string                                 `json:"workspace_dir"`
	ScriptsDir   string                                 `json:"scripts_dir"`
	DAGFile      string                                 `json:"dag_file"`
	ConfigFile   string                                 `json:"config_file"`
	SampleData   string                                 `json:"sample_data"`
	CustomSteps  []string                               `json:"custom_steps"`
	Nodes        []catalog.NodeName                     `json:"nodes"`
	Edges        [][]catalog.NodeName                   `json:"edges"`
	FilesWritten []string                               `json:"files_written"`
	Placeholders map[string]any                         `json:"placeholders"` // config path -> placeholder value to replace
	Choices      map[string]any                         `json:"choices"`      // config path -> essential value the scaffold chose (confirm it)
	ConfigSource string                                 `json:"config_source"`
	InputData    map[catalog.NodeName]map[string]string `json:"input_data"` // validate.run_scripts input_data for the sample
	Replaced     bool                                   `json:"replaced"`
}

// DefaultDAG returns the nodes and edges of a framework's default DAG with
// the custom step.
func DefaultDAG(fw Framework, custom catalog.StepType) ([]catalog.NodeName, [][]catalog.NodeName) {
	c := catalog.NodeName(custom)
	train, eval := catalog.NodeName(fw.Training), catalog.NodeName(fw.Evaluation)+"_calibration"
	nodes := []catalog.NodeName{
		"DummyDataLoading_training", "TabularPreprocessing_training", c + "_training", train,
		"DummyDataLoading_calibration", "TabularPreprocessing_calibration", c + "_calibration", eval,
	}
	edges := [][]catalog.NodeName{
		{"DummyDataLoading_training", "TabularPreprocessing_training"},
		{"TabularPreprocessing_training", c + "_training"},
		{c + "_training", train},
		{"DummyDataLoading_calibration", "TabularPreprocessing_calibration"},
		{"TabularPreprocessing_calibration", c + "_calibration"},
		{c + "_calibration", eval},
		{train, eval},
	}
	return nodes, edges
}

// Init scaffolds a project (see the package doc). Errors: ErrInvalidName
// and ErrUnknownFramework (wrapped), *ExistsError, and anything the
// catalog, config or file system reports; on error nothing is left behind.
func Init(ctx context.Context, opts InitOptions) (*Result, error) {
	name := strings.TrimSpace(opts.Name)
	if err := CheckName(name); err != nil {
		return nil, err
	}
	fwName := strings.ToLower(strings.TrimSpace(opts.Framework))
	fw, ok := Frameworks[fwName]
	if !ok {
		return nil, fmt.Errorf("%w %q: choose one of %s", ErrUnknownFramework, opts.Framework, strings.Join(FrameworkNames(), ", "))
	}
	if !filepath.IsAbs(opts.Parent) {
		return nil, fmt.Errorf("project parent %q is not an absolute path", opts.Parent)
	}
	dirName := DirName(name, fw.Name)
	target := filepath.Join(opts.Parent, dirName)
	exists := false
	fsys := safefs.From(ctx)
	if _, err := fsys.Lstat(target); err == nil {
		exists = true
		if !opts.Overwrite {
			return nil, &ExistsError{Path: target}
		}
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	files, res, err := render(ctx, name, fw, target, opts.Template, now())
	if err != nil {
		return nil, err
	}
	if err := writeTree(fsys, opts.Parent, target, files, exists); err != nil {
		return nil, err
	}
	res.Replaced = exists
	return res, nil
}

// render builds every file of the project in memory.
func render(ctx context.Context, name string, fw Framework, target string, tmplFn TemplateFunc, now time.Time) (map[string][]byte, *Result, error) {
	base, err := catalog.Default()
	if err != nil {
		return nil, nil, fmt.Errorf("load the step catalog: %w", err)
	}
	custom := CustomStepName(name)
	if _, clash := base.Step(custom); clash {
		return nil, nil, fmt.Errorf("%w: the custom step name %s of project %q is a catalog step; choose another name", ErrInvalidName, custom, name)
	}
	for _, t := range []catalog.StepType{fw.Training, fw.Evaluation, "DummyDataLoading", "TabularPreprocessing"} {
		if _, ok := base.Step(t); !ok {
			return nil, nil, fmt.Errorf("the catalog has no %s step, which the %s project needs", t, fw.Name)
		}
	}
	files := map[string][]byte{}
	stepFile := filepath.ToSlash(filepath.Join(StepsDir, string(custom)+catalog.StepFileSuffix))
	yml := customStepYAML(name, custom)
	files[stepFile] = yml
	st, err := catalog.ParseStepFile(string(custom)+catalog.StepFileSuffix, yml)
	if err != nil {
		return nil, nil, fmt.Errorf("the scaffolded step file does not load: %w", err)
	}
	cat, err := withStep(string(custom)+catalog.StepFileSuffix, yml)
	if err != nil {
		return nil, nil, err
	}
	nodes, edges := DefaultDAG(fw, custom)

	// A skeleton for the project's own step only: every catalog step of the
	// DAG runs the catalog's own code (the compiler uploads it when the
	// project has no file of that name), and a skeleton written for it
	// would win over that code and do none of the step's work.
	for _, n := range nodes {
		t, _, ok := cat.ResolveNode(n)
		if !ok {
			return nil, nil, fmt.Errorf("node %s resolves to no step", n)
		}
		if t != custom {
			if s, _ := cat.Step(t); validation.HasScript(s) {
				if _, embedded := s.LookupCode(s.Contract.EntryPoint); !embedded {
					return nil, nil, fmt.Errorf("catalog step %s ships no code for %s", t, s.Contract.EntryPoint)
				}
			}
			continue
		}
		s, _ := cat.Step(t)
		b, err := ScriptSkeleton(s)
		if err != nil {
			return nil, nil, err
		}
		files[ScriptsDir+"/"+s.Contract.EntryPoint] = b
	}

	// DAG file.
	d, err := dag.FromPairs(nodes, edges)
	if err != nil {
		return nil, nil, err
	}
	meta := map[string]any{"project": DirName(name, fw.Name), "framework": fw.Name, "generated_by": "cursus project.init",
		"custom_steps": []string{string(custom)}, "workspace_dirs": []string{StepsDir}}
	db, err := dag.NewFile(d, meta, now).Encode(true)
	if err != nil {
		return nil, nil, err
	}
	files[DAGFile] = append(db, '\n')

	// Config.
	cfg, filled, source, err := projectConfig(ctx, cat, name, fw, nodes, edges, tmplFn)
	if err != nil {
		return nil, nil, err
	}
	files[ConfigFile] = cfg
	files[SampleData] = sampleCSV()

	res := &Result{
		Project: DirName(name, fw.Name), Framework: fw.Name, TargetPath: target,
		WorkspaceDir: filepath.Join(target, StepsDir), ScriptsDir: filepath.Join(target, ScriptsDir),
		DAGFile: filepath.Join(target, filepath.FromSlash(DAGFile)), ConfigFile: filepath.Join(target, filepath.FromSlash(ConfigFile)),
		SampleData: filepath.Join(target, filepath.FromSlash(SampleData)), CustomSteps: []string{string(custom)},
		Nodes: nodes, Edges: edges, Placeholders: map[string]any{}, Choices: map[string]any{}, ConfigSource: source,
		InputData: map[catalog.NodeName]map[string]string{
			"DummyDataLoading_training":    {"INPUT_DATA": filepath.Join(target, filepath.FromSlash(SampleData))},
			"DummyDataLoading_calibration": {"INPUT_DATA": filepath.Join(target, filepath.FromSlash(SampleData))},
		},
	}
	for p := range files {
		res.FilesWritten = append(res.FilesWritten, p)
	}
	res.FilesWritten = append(res.FilesWritten, ReadmeFile, LedgerFile)
	sort.Strings(res.FilesWritten)
	for k, v := range filled {
		if validation.IsPlaceholder(v) {
			res.Placeholders[k] = v
		} else {
			res.Choices[k] = v
		}
	}
	files[ReadmeFile] = readme(res, fw, st)
	files[LedgerFile] = ledger(res, fw, st)
	return files, res, nil
}

// withStep returns a catalog of base plus one step, by writing the step to
// a private temporary workspace directory (the catalog's only way to add
// steps), with the trusted file-access layer: the directory is its own.
func withStep(file string, yml []byte) (*catalog.Catalog, error) {
	dir, err := os.MkdirTemp("", "cursus-scaffold-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := safefs.Trusted().WriteFile(filepath.Join(dir, file), yml, 0o644); err != nil {
		return nil, err
	}
	cat, err := catalog.Load(nil, dir)
	if err != nil {
		return nil, fmt.Errorf("the scaffolded step does not load with the catalog: %w", err)
	}
	return cat, nil
}

// projectConfig builds config.json: the template's values, project values
// (source dir, model class, data sources, label and id columns, which
// the training step's typed hyperparameters include), placeholders for
// the remaining essential fields (a trainer's feature lists), and
// the whole set validated by the config schema of the project's catalog.
func projectConfig(ctx context.Context, cat *catalog.Catalog, name string, fw Framework, nodes []catalog.NodeName, edges [][]catalog.NodeName, tmplFn TemplateFunc) ([]byte, map[string]any, string, error) {
	schema, err := config.FromCatalog(cat)
	if err != nil {
		return nil, nil, "", err
	}
	var t *Template
	if tmplFn != nil {
		if t, err = tmplFn(ctx, nodes, edges); err != nil {
			return nil, nil, "", fmt.Errorf("config template: %w", err)
		}
	}
	if t == nil {
		t = engineTemplate(schema, nodes)
	}
	base := map[string]any{}
	for k, v := range t.Base {
		base[k] = v
	}
	steps := map[catalog.NodeName]map[string]any{}
	for n, vals := range t.Steps {
		m := map[string]any{}
		for k, v := range vals {
			m[k] = v
		}
		steps[n] = m
	}
	// Nodes the template could not map (the custom step, unknown to a
	// template built from the embedded catalog) take their own fields.
	for _, n := range nodes {
		if _, ok := steps[n]; ok {
			continue
		}
		tt, suffix, ok := cat.ResolveNode(n)
		if !ok {
			return nil, nil, "", fmt.Errorf("node %s resolves to no step", n)
		}
		class, ok := schema.ClassForStep(tt)
		if !ok {
			return nil, nil, "", fmt.Errorf("node %s: no config class for %s", n, tt)
		}
		m := map[string]any{}
		for _, f := range class.Fields {
			if f.Tier == catalog.TierDerived || schema.IsBaseField(f.Name) || (class.Processing && schema.IsProcessingField(f.Name)) {
				continue
			}
			m[f.Name] = f.Default
		}
		if suffix != "" && class.HasField("job_type") {
			m["job_type"] = suffix
		}
		steps[n] = m
	}
	// Project values.
	base["project_root_folder"] = DirName(name, fw.Name)
	base["source_dir"] = ScriptsDir
	base["model_class"] = fw.ModelClass
	for _, n := range nodes {
		tt, suffix, _ := cat.ResolveNode(n)
		class, _ := schema.ClassForStep(tt)
		m := steps[n]
		set := func(field string, v any) {
			if class != nil && class.HasField(field) && m[field] == nil {
				m[field] = v
			}
		}
		if tt == "DummyDataLoading" {
			jt := suffix
			if jt == "" {
				jt = "training"
			}
			set("data_source", "s3://replace-me-bucket/data/"+jt+"/")
		}
		set("label_name", "label")
		set("id_name", "id")
		if class != nil && class.HasField(config.LegacyHyperparametersKey) && m[config.LegacyHyperparametersKey] == nil {
			// a training step whose hyperparameters are not typed yet
			m[config.LegacyHyperparametersKey] = map[string]any{"label_name": "label", "id_name": "id", "tab_field_list": []any{"f1", "f2"}}
		}
	}
	// Placeholders for every essential field still blank.
	placeholders := map[string]any{}
	for k, v := range base {
		if v != nil {
			continue
		}
		f, ok := baseField(schema, k)
		if !ok || f.Tier != catalog.TierEssential {
			continue
		}
		pv, _ := validation.PlaceholderValue(f, nil)
		base[k] = pv
		placeholders["base."+k] = pv
	}
	for _, n := range nodes {
		tt, _, _ := cat.ResolveNode(n)
		class, _ := schema.ClassForStep(tt)
		st, _ := cat.Step(tt)
		m := steps[n]
		for _, f := range class.Fields {
			if f.Tier != catalog.TierEssential || f.Default != nil {
				continue
			}
			if v, ok := m[f.Name]; ok && v != nil {
				continue
			}
			if v, ok := base[f.Name]; ok && v != nil {
				continue
			}
			pv, _ := validation.PlaceholderValue(f, st.JobTypes)
			m[f.Name] = pv
			placeholders[string(n)+"."+f.Name] = pv
		}
		for k, v := range m {
			if validation.IsPlaceholder(v) {
				placeholders[string(n)+"."+k] = v
			}
		}
	}
	for k, v := range base {
		if validation.IsPlaceholder(v) {
			placeholders["base."+k] = v
		}
	}
	// Drop nulls so the schema applies defaults and derivations.
	clean := func(m map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			if v != nil {
				out[k] = v
			}
		}
		return out
	}
	cleanSteps := map[catalog.NodeName]map[string]any{}
	for n, m := range steps {
		cleanSteps[n] = clean(m)
	}
	set, err := schema.Build(config.BuildInput{Nodes: nodes, Base: clean(base), Steps: cleanSteps})
	if err != nil {
		return nil, nil, "", fmt.Errorf("the scaffolded config does not validate: %w", err)
	}
	b, err := config.Marshal(set)
	if err != nil {
		return nil, nil, "", err
	}
	return b, placeholders, t.Source, nil
}

func baseField(schema *config.Schema, name string) (catalog.ConfigField, bool) {
	for _, f := range append(schema.BaseFields(), schema.ProcessingFields()...) {
		if f.Name == name {
			return f, true
		}
	}
	return catalog.ConfigField{}, false
}

// engineTemplate is the template when no TemplateFunc is given.
func engineTemplate(schema *config.Schema, nodes []catalog.NodeName) *Template {
	tp := schema.Template(nodes)
	return &Template{Base: tp.Base, Steps: tp.Steps, Essential: tp.EssentialFields, Pending: tp.Pending, Source: "engine/config.Schema.Template"}
}

// sampleCSV is 40 rows of deterministic synthetic data.
func sampleCSV() []byte {
	var b strings.Builder
	b.WriteString("id,f1,f2,label\n")
	for i := 1; i <= 40; i++ {
		f1 := float64((i*37)%100) / 10
		f2 := float64((i*53)%100) / 10
		label := 0
		if f1+f2 > 10 {
			label = 1
		}
		fmt.Fprintf(&b, "%d,%.1f,%.1f,%d\n", i, f1, f2, label)
	}
	return []byte(b.String())
}

// writeTree writes files, through fsys, under a temporary directory in
// parent, then renames it to target; an existing target (replace true) is
// moved aside first and removed after the swap. A parent it had to create
// is removed again when the write fails.
func writeTree(fsys *safefs.FS, parent, target string, files map[string][]byte, replace bool) (err error) {
	if !fsys.Exists(parent) {
		if err := fsys.MkdirAll(parent, 0o755); err != nil {
			return err
		}
		defer func() {
			if err != nil {
				_ = fsys.Remove(parent)
			}
		}()
	}
	tmp, err := fsys.MkdirTemp(parent, "."+filepath.Base(target)+".tmp-", 0o755)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			_ = fsys.RemoveAll(tmp)
		}
	}()
	for rel, data := range files {
		p := filepath.Join(tmp, filepath.FromSlash(rel))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".py") {
			mode = 0o755
		}
		if err := fsys.WriteFile(p, data, mode); err != nil {
			return err
		}
	}
	var old string
	if replace {
		old = tmp + ".old"
		if err := fsys.Rename(target, old); err != nil {
			return err
		}
	}
	if err := fsys.Rename(tmp, target); err != nil {
		if old != "" {
			_ = fsys.Rename(old, target)
		}
		return err
	}
	ok = true
	if old != "" {
		_ = fsys.RemoveAll(old)
	}
	return nil
}
