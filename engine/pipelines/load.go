package pipelines

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
	"github.com/cursus-go/cursus/internal/suggest"
	"go.yaml.in/yaml/v3"
)

//go:embed dags/*.yaml
var embedded embed.FS

// Catalog is a loaded, validated, read-only set of shared DAGs. It is safe
// for concurrent use.
type Catalog struct {
	entries []*Entry // sorted by id
	byID    map[string]*Entry
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error
)

// Default returns the catalog of embedded DAGs, loaded and validated once.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() { defaultCat, defaultErr = Load(embedded, "dags") })
	return defaultCat, defaultErr
}

// FileError is one problem of one DAG file.
type FileError struct {
	File    string
	Field   string
	Message string
}

// Error implements error.
func (e *FileError) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Message
	}
	return e.File + ": " + e.Field + ": " + e.Message
}

// LoadErrors lists every problem found while loading a catalog.
type LoadErrors []*FileError

// Error implements error.
func (l LoadErrors) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Load reads and validates every *.yaml file of dir in fsys. All problems
// are reported together (LoadErrors).
func Load(fsys fs.FS, dir string) (*Catalog, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var problems LoadErrors
	c := &Catalog{byID: map[string]*Entry{}}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		e, errs := Parse(path.Base(f), data)
		problems = append(problems, errs...)
		if e == nil {
			continue
		}
		if prev, dup := c.byID[e.ID]; dup {
			problems = append(problems, &FileError{File: e.File, Field: "id", Message: fmt.Sprintf("id %q already used by %s", e.ID, prev.File)})
			continue
		}
		c.byID[e.ID] = e
		c.entries = append(c.entries, e)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	if len(c.entries) == 0 {
		return nil, errors.New("pipelines: no DAG files in " + dir)
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].ID < c.entries[j].ID })
	return c, nil
}

var idRE = lazyre.New(`^[a-z][a-z0-9_]*$`)

// Parse decodes and validates one DAG file. Unknown keys are errors. It
// returns the entry (nil when it cannot be decoded) and every problem.
func Parse(file string, data []byte) (*Entry, []*FileError) {
	var e Entry
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&e); err != nil {
		return nil, []*FileError{{File: file, Message: "cannot decode: " + err.Error()}}
	}
	e.File = file
	var errs []*FileError
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FileError{File: file, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if !idRE().MatchString(e.ID) {
		bad("id", "must match %s, got %q", idRE(), e.ID)
	} else if want := strings.TrimSuffix(file, ".yaml"); e.ID != want {
		bad("id", "must equal the file name %q, got %q", want, e.ID)
	}
	for field, v := range map[string]string{"title": e.Title, "description": e.Description, "task_type": e.TaskType,
		"agent_context.when_to_use": e.AgentContext.WhenToUse, "agent_context.when_not_to_use": e.AgentContext.WhenNotToUse,
		"cost.cost_driver": e.Cost.CostDriver} {
		if strings.TrimSpace(v) == "" {
			bad(field, "must not be empty")
		}
	}
	if !slices.Contains(Frameworks, e.Framework) {
		bad("framework", "must be one of %v, got %q", Frameworks, e.Framework)
	}
	if !slices.Contains(Complexities, e.Complexity) {
		bad("complexity", "must be one of %v, got %q", Complexities, e.Complexity)
	}
	if !slices.Contains(CostTiers, e.Cost.InstanceCostTier) {
		bad("cost.instance_cost_tier", "must be one of %v, got %q", CostTiers, e.Cost.InstanceCostTier)
	}
	if e.Cost.EstimatedHours <= 0 {
		bad("cost.estimated_hours", "must be positive")
	}
	if len(e.Features) == 0 {
		bad("features", "must list at least one feature")
	}
	seenF := map[string]bool{}
	for i, f := range e.Features {
		if !slices.Contains(Features, f) {
			bad(fmt.Sprintf("features[%d]", i), "unknown feature %q (known: %s)", f, strings.Join(Features, ", "))
		}
		if seenF[f] {
			bad(fmt.Sprintf("features[%d]", i), "duplicate feature %q", f)
		}
		seenF[f] = true
	}
	// data_source is a closed value and says what the loading nodes read
	loads := map[string]bool{}
	for _, n := range e.Nodes {
		t, _, _ := strings.Cut(n, "_")
		if src, ok := LoadingSteps[t]; ok {
			loads[src] = true
		}
	}
	switch src := e.InputRequirements.DataSource; {
	case !slices.Contains(DataSources, src):
		bad("input_requirements.data_source", "must be one of %v, got %q", DataSources, src)
	case len(loads) == 0 && src != SourcePretrained:
		bad("input_requirements.data_source", "is %q but no node loads data (a DAG without a loading step is %s)", src, SourcePretrained)
	case len(loads) > 0 && !loads[src]:
		bad("input_requirements.data_source", "is %q but the loading nodes read %v", src, mapkeys.Sorted(loads))
	case len(loads) > 1:
		bad("input_requirements.data_source", "the loading nodes read from several sources %v; one DAG loads from one", mapkeys.Sorted(loads))
	}
	if len(e.AgentContext.ConfigGuidance.UserMustProvide) == 0 {
		bad("agent_context.config_guidance.user_must_provide", "must not be empty")
	}
	if len(e.Nodes) == 0 {
		bad("nodes", "must list at least one node")
	}
	seen := map[string]bool{}
	for i, n := range e.Nodes {
		if strings.TrimSpace(n) == "" || n != strings.TrimSpace(n) {
			bad(fmt.Sprintf("nodes[%d]", i), "blank or padded node name %q", n)
		}
		if seen[n] {
			bad(fmt.Sprintf("nodes[%d]", i), "duplicate node %q", n)
		}
		seen[n] = true
	}
	seenE := map[[2]string]bool{}
	edgesOK := true
	for i, p := range e.Edges {
		field := fmt.Sprintf("edges[%d]", i)
		if len(p) != 2 {
			bad(field, "an edge is a [from, to] pair, got %d names", len(p))
			edgesOK = false
			continue
		}
		for _, n := range p {
			if !seen[n] {
				bad(field, "names %q, which is not a declared node", n)
				edgesOK = false
			}
		}
		if p[0] == p[1] {
			bad(field, "self loop on %q", p[0])
		}
		k := [2]string{p[0], p[1]}
		if seenE[k] {
			bad(field, "duplicate edge %s -> %s", p[0], p[1])
		}
		seenE[k] = true
	}
	if edgesOK && len(e.Nodes) > 0 {
		issues := e.DAG().Validate(dag.ValidateOptions{})
		for _, cat := range issues.Categories() {
			bad("edges", "%s: %s", cat, strings.Join(issues[cat], "; "))
		}
	}
	e.types = e.stepTypes()
	return &e, errs
}

// Len is the number of DAGs.
func (c *Catalog) Len() int { return len(c.entries) }

// Entries returns every DAG, sorted by id. The entries are shared and must
// not be modified.
func (c *Catalog) Entries() []*Entry { return slices.Clone(c.entries) }

// IDs returns every DAG id, sorted.
func (c *Catalog) IDs() []string {
	ids := make([]string, len(c.entries))
	for i, e := range c.entries {
		ids[i] = e.ID
	}
	return ids
}

// ErrNotFound is matched (errors.Is) by every *NotFoundError.
var ErrNotFound = errors.New("unknown DAG id")

// NotFoundError reports an unknown DAG id with the closest known ids.
type NotFoundError struct {
	ID          string
	Suggestions []string
	// Available are the catalog's ids.
	Available []string
}

// Kind implements errkind.Kinded: NotFound.
func (e *NotFoundError) Kind() errkind.Kind { return errkind.NotFound }

// Details implements errkind.Detailer: the id asked for, the closest ids
// and every id.
func (e *NotFoundError) Details() map[string]any {
	sugg := e.Suggestions
	if sugg == nil {
		sugg = []string{}
	}
	return map[string]any{"dag_id": e.ID, "suggestions": sugg, "available": slices.Clone(e.Available)}
}

// Error implements error.
func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("unknown DAG id %q", e.ID)
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	return msg
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Get returns the DAG with an id (trimmed, case-insensitive), or a
// *NotFoundError with the closest ids.
func (c *Catalog) Get(id string) (*Entry, error) {
	key := strings.ToLower(strings.TrimSpace(id))
	if e, ok := c.byID[key]; ok {
		return e, nil
	}
	return nil, &NotFoundError{ID: id, Suggestions: c.Closest(key, 3), Available: c.IDs()}
}

// Closest returns up to n ids closest to a string: ids that contain it or
// that it contains, then ids sharing the most words with it, then by edit
// distance.
func (c *Catalog) Closest(s string, n int) []string {
	s = strings.ToLower(strings.TrimSpace(s))
	type cand struct {
		id    string
		score float64
	}
	words := splitWords(s)
	var cs []cand
	for _, e := range c.entries {
		score := 0.0
		if s != "" && (strings.Contains(e.ID, s) || strings.Contains(s, e.ID)) {
			score += 2
		}
		idWords := splitWords(e.ID)
		shared := 0
		for _, w := range words {
			if slices.Contains(idWords, w) {
				shared++
			}
		}
		if len(words) > 0 {
			score += float64(shared) / float64(len(words))
		}
		d := suggest.Distance(s, e.ID, -1)
		longest := max(len(s), len(e.ID), 1)
		score += 1 - float64(d)/float64(longest)
		cs = append(cs, cand{e.ID, score})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	var out []string
	for i := 0; i < len(cs) && len(out) < n; i++ {
		if cs[i].score >= 0.5 {
			out = append(out, cs[i].id)
		}
	}
	return out
}

func splitWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// Filter selects DAGs for List; empty fields match everything.
type Filter struct {
	Framework  string
	Complexity string
	Feature    string
}

// List returns the DAGs matching a filter, sorted by id. Matching is
// case-insensitive.
func (c *Catalog) List(f Filter) []*Entry {
	var out []*Entry
	for _, e := range c.entries {
		if f.Framework != "" && !strings.EqualFold(e.Framework, f.Framework) {
			continue
		}
		if f.Complexity != "" && !strings.EqualFold(e.Complexity, f.Complexity) {
			continue
		}
		if f.Feature != "" && !e.HasFeature(strings.ToLower(f.Feature)) {
			continue
		}
		out = append(out, e)
	}
	return out
}
