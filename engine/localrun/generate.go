package localrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/proc"
	"github.com/cursus-go/cursus/internal/safefs"
)

// generatorStep is the catalog step whose script makes the data a run
// generates (Options.Generate).
const generatorStep = "DummyDataGeneration"

// Rows and time limit of one generated data set.
const (
	generatedRows    = 1000
	generatorTimeout = 10 * time.Minute
)

// Generated is a data set a run generated in place of a data key.
type Generated struct {
	// Key is the data key it stands for (an S3 URI or "<step>.<output>").
	Key string `json:"key"`
	// Path is the generated file (an S3 object's stand-in) or directory.
	Path    string   `json:"path"`
	Rows    int      `json:"rows"`
	Columns []string `json:"columns"`
	Label   string   `json:"label"`
	Classes int      `json:"classes"`
}

// dataShape is what the pipeline reads of its data: the columns its
// trainer names and the number of label classes.
type dataShape struct {
	id, label            string
	numeric, categorical []string
	classes              int
	// trained: a trainer names the features (an empty list is none, not
	// the generator's own columns).
	trained bool
}

// columns lists the generated data's columns in the generator's order.
func (d dataShape) columns() []string {
	out := append([]string{d.id}, d.numeric...)
	return append(append(out, d.categorical...), d.label)
}

// shape reads the data's shape off the definition: the first Training
// step's hyperparameters label_name, tab_field_list, cat_field_list and
// id_name (the names every catalog trainer reads), its classes from
// multiclass_categories, num_class or num_classes (binary otherwise); a
// pipeline without a trainer gets the label and id its processing steps'
// LABEL_FIELD and ID_FIELD name, and the generator's own feature columns.
func (r *run) shape() (dataShape, error) {
	d := dataShape{classes: 2}
	for _, s := range r.order {
		if s.Type != compiler.StepTypeTraining {
			continue
		}
		hps, err := r.ev.strMap(s.Arguments["HyperParameters"])
		if err != nil {
			return d, fmt.Errorf("%s HyperParameters: %w", s.Name, err)
		}
		d.label, d.id = decodeHP(hps["label_name"]), decodeHP(hps["id_name"])
		d.numeric, d.categorical = hpList(hps["tab_field_list"]), hpList(hps["cat_field_list"])
		d.trained = true
		if n := len(hpList(hps["multiclass_categories"])); n > 2 {
			d.classes = n
		} else if n := hpInt(hps["num_class"], hps["num_classes"]); n > 2 {
			d.classes = n
		}
		break
	}
	for _, s := range r.order {
		if s.Type != compiler.StepTypeProcessing || (d.label != "" && d.id != "") {
			continue
		}
		env, err := r.ev.strMap(s.Arguments["Environment"])
		if err != nil {
			return d, fmt.Errorf("%s Environment: %w", s.Name, err)
		}
		if d.label == "" {
			d.label = strings.TrimSpace(env["LABEL_FIELD"])
		}
		if d.id == "" {
			d.id = strings.TrimSpace(env["ID_FIELD"])
		}
	}
	if d.label == "" {
		d.label = "label"
	}
	if d.id == "" {
		d.id = "id"
	}
	drop := func(l []string) []string {
		return slices.DeleteFunc(slices.Clone(l), func(c string) bool { return c == d.id || c == d.label })
	}
	d.numeric, d.categorical = drop(d.numeric), drop(d.categorical)
	return d, nil
}

// hpList decodes a list hyperparameter (JSON text of a list; a string of
// comma-separated names is taken too).
func hpList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var l []any
	if err := json.Unmarshal([]byte(v), &l); err != nil {
		return names(decodeHP(v))
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s := strings.TrimSpace(text(x)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func hpInt(vs ...string) int {
	for _, v := range vs {
		if n, err := strconv.Atoi(strings.TrimSpace(decodeHP(v))); err == nil {
			return n
		}
	}
	return 0
}

func names(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// checkGenerate checks the keys to generate: each an s3:// URI or a
// "<step>.<output>" of the definition, not also given in data.
func (r *run) checkGenerate() error {
	seen := map[string]bool{}
	for _, k := range r.opts.Generate {
		field := "generate_data." + k
		if _, given := r.opts.Data[k]; given {
			return &InputError{Field: field, Problem: "data gives this key a local path already; generate it or give it, not both"}
		}
		if seen[k] {
			return &InputError{Field: field, Problem: "listed twice"}
		}
		seen[k] = true
		if strings.HasPrefix(k, "s3://") {
			if _, err := normURI(k); err != nil {
				return &InputError{Field: field, Problem: err.Error()}
			}
			continue
		}
		step, out, ok := cutStep(k, r.ev.steps)
		if !ok || !slices.Contains(r.outputs[step], out) {
			return &InputError{Field: field, Problem: "a key is an s3:// URI the definition reads or <step>.<output> of one of its steps"}
		}
	}
	return nil
}

// generate makes the data of Options.Generate: for each key, the catalog's
// DummyDataGeneration script, run in the sandbox like a processing job,
// writes generatedRows rows with the columns the pipeline reads (shape)
// under <run>/generated/<n>/ (data/, signature/, log.txt); the key is then bound to it as a data key
// is: an S3 object's URI to the CSV file, a prefix or a step output to the
// directory.
func (r *run) generate(ctx context.Context) error {
	if len(r.opts.Generate) == 0 {
		return nil
	}
	d, err := r.shape()
	if err != nil {
		return err
	}
	script, err := generatorScript()
	if err != nil {
		return err
	}
	code := filepath.Join(r.dir, ".cursus", "generate")
	if err := r.opts.FS.WriteFile(filepath.Join(code, script.name), script.body, 0o644); err != nil {
		return err
	}
	for i, k := range r.opts.Generate {
		dir := filepath.Join(r.dir, "generated", strconv.Itoa(i+1))
		data, sig := filepath.Join(dir, "data"), filepath.Join(dir, "signature")
		for _, p := range []string{data, sig} {
			if err := r.opts.FS.MkdirAll(p, 0o755); err != nil {
				return err
			}
		}
		env := map[string]string{
			"NUM_ROWS": strconv.Itoa(generatedRows), "NUM_CLASSES": strconv.Itoa(d.classes),
			"LABEL_FIELD": d.label, "ID_FIELD": d.id,
			"NUMERIC_COLUMNS": strings.Join(d.numeric, ","), "CATEGORICAL_COLUMNS": strings.Join(d.categorical, ","),
		}
		if d.trained {
			env["NUM_NUMERIC_FEATURES"], env["NUM_CATEGORICAL_FEATURES"] = strconv.Itoa(len(d.numeric)), strconv.Itoa(len(d.categorical))
		}
		j := Job{
			Command: []string{"python3", "/opt/ml/processing/input/code/" + script.name, "--job_type", fmt.Sprintf("generated_%d", i+1)},
			Env:     env, Dir: "/opt/ml/processing", Timeout: generatorTimeout, MemoryBytes: r.memory(),
			Scratch: filepath.Join(dir, "job"),
			Mounts: []Mount{
				{Container: "/opt/ml/processing/input/code", Host: code},
				{Container: "/opt/ml/processing/output/data", Host: data, Writable: true},
				{Container: "/opt/ml/processing/output/signature", Host: sig, Writable: true},
			},
		}
		r.speedEnv(&j)
		began := time.Now()
		res, err := r.ex.run(ctx, j)
		r.busy += time.Since(began)
		if res != nil {
			r.jobTime += res.Duration
			_ = r.opts.FS.WriteFile(filepath.Join(dir, "log.txt"), res.Stdout, 0o644)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			msg := err.Error()
			if res != nil {
				msg += ": " + proc.Tail(res.Stdout, logTailBytes)
			}
			return &InputError{Field: "generate_data." + k, Problem: "generating the data failed: " + msg}
		}
		// The generator wrote data/: what is below it is reached through a
		// root on it.
		bound := trusted(data)
		if name := objectName(k); strings.HasPrefix(k, "s3://") && !strings.HasSuffix(k, "/") && path.Ext(name) != "" {
			bound = below(data, "part-00000.csv")
		}
		if strings.HasPrefix(k, "s3://") {
			if err := r.st.bind(k, bound, "generate_data"); err != nil {
				return &InputError{Field: "generate_data." + k, Problem: err.Error()}
			}
		} else {
			step, out, _ := cutStep(k, r.ev.steps)
			if r.dataOut[step] == nil {
				r.dataOut[step] = map[string]hostPath{}
			}
			r.dataOut[step][out] = bound
		}
		cols := d.columns()
		if b, err := below(sig, "signature").readFile(safefs.KindDocument); err == nil {
			cols = names(string(b)) // the generator's own names when the pipeline names no features
		}
		r.report.Generated = append(r.report.Generated, Generated{Key: k, Path: bound.String(), Rows: generatedRows,
			Columns: cols, Label: d.label, Classes: d.classes})
	}
	return nil
}

// memory is each job's address-space limit.
func (r *run) memory() int64 {
	if r.opts.MemoryBytes > 0 {
		return r.opts.MemoryBytes
	}
	return DefaultMemoryBytes
}

type scriptFile struct {
	name string
	body []byte
}

// generatorScript is the generator step's embedded script.
func generatorScript() (scriptFile, error) {
	cat, err := catalog.Default()
	if err != nil {
		return scriptFile{}, err
	}
	st, ok := cat.Step(generatorStep)
	if !ok {
		return scriptFile{}, fmt.Errorf("the catalog has no %s step", generatorStep)
	}
	c, ok := st.Script()
	if !ok || c.Dir || len(c.Files) != 1 {
		return scriptFile{}, fmt.Errorf("the catalog ships no script of %s", generatorStep)
	}
	b, err := fs.ReadFile(c.FS, c.Files[0])
	if err != nil {
		return scriptFile{}, err
	}
	return scriptFile{name: c.Files[0], body: b}, nil
}

// DataKeys are the S3 URIs a compiled pipeline reads that none of its
// steps writes: the inputs bound from a config value or a manual input
// (DummyDataLoading's data_source) and not uploaded by the compiler
// (a local data_source is), sorted. A local run needs each in
// Options.Data or Options.Generate.
func DataKeys(res *compiler.Result) []string {
	if res == nil || res.Report == nil {
		return nil
	}
	uploaded := map[string]bool{}
	for _, a := range res.Manifest {
		uploaded[a.S3URI] = true
	}
	seen := map[string]bool{}
	for _, n := range res.Report.Nodes {
		for _, b := range n.Inputs {
			if b == nil || (b.Source != compiler.SourceConfig && b.Source != compiler.SourceManual) {
				continue
			}
			if strings.HasPrefix(b.Reference, "s3://") && !uploaded[b.Reference] {
				seen[b.Reference] = true
			}
		}
	}
	return mapkeys.Sorted(seen)
}
