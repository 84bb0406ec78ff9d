package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/internal/safefs"
	"github.com/cursus-go/cursus/internal/strlist"
	"github.com/cursus-go/cursus/registry"
)

// loadDAGArg is the shared DAG resolver of every tool that accepts
// `dag` (inline object) or `dag_file` (path):
// exactly one of the two (both or neither: invalid_input); a dag_file that
// does not exist is not_found and one that cannot be read as a DAG file is
// invalid_input; an inline DAG may be flat {"nodes", "edges"} or wrapped
// {"dag": {"nodes", "edges"}} (the body is dag.dag when that is an object);
// nodes must be a non-empty list of non-empty strings and each edge a pair
// of non-empty strings (invalid_input naming the offending element). A
// relative dag_file is taken from the project root, and the file is read
// through the call's file-access layer (confined, size-capped).
func loadDAGArg(ctx context.Context, dagArg map[string]any, dagFile string, dagID ...string) (*dag.PipelineDAG, error) {
	hasFile := strings.TrimSpace(dagFile) != ""
	id := ""
	if len(dagID) > 0 {
		id = strings.TrimSpace(dagID[0])
	}
	given := 0
	for _, g := range []bool{dagArg != nil, hasFile, id != ""} {
		if g {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, envelope.InvalidInput("provide the DAG once: 'dag' (inline JSON), 'dag_file' (path) or 'dag_id' (a shared DAG), not both").
			WithRemedy("pass the DAG once: inline as dag, as a file path in dag_file, or as a pipeline-catalog id in dag_id")
	case given == 0:
		return nil, envelope.InvalidInput("must provide one of 'dag' (inline JSON), 'dag_file' (path) or 'dag_id' (a shared DAG)").
			WithRemedy("pass dag: {\"nodes\": [...], \"edges\": [[src, dst], ...]}, dag_file: a path written by dag.serialize, or dag_id: an id from pipeline_catalog.list", "pipeline_catalog.list", "dag.construct")
	case id != "":
		e, err := pcEntry(id)
		if err != nil {
			return nil, err
		}
		return e.DAG(), nil
	case hasFile:
		d, _, err := dag.ReadFile(safefs.From(ctx), dagFile)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, envelope.NotFound("dag_file not found: %s", dagFile).WithDetails("dag_file", dagFile).
					WithRemedy("check the path (relative paths are taken from the project root); dag.serialize writes DAG files", "dag.serialize")
			}
			if ferr := registry.FileError("dag_file", dagFile, err); ferr != err {
				return nil, ferr
			}
			return nil, envelope.InvalidInput("failed to load DAG from '%s': %v", dagFile, err).WithDetails("dag_file", dagFile)
		}
		return d, nil
	}
	body := dagArg
	if inner, ok := dagArg["dag"].(map[string]any); ok {
		body = inner
	}
	rawNodes, ok := body["nodes"].([]any)
	if !ok || len(rawNodes) == 0 {
		return nil, envelope.InvalidInput("'dag.nodes' must be a non-empty list of step names").WithDetails("got", dagArgKind(body["nodes"]))
	}
	rawEdges, _ := body["edges"].([]any)
	if err := dagSizeError(len(rawNodes), len(rawEdges)); err != nil {
		return nil, err
	}
	nodes := make([]catalog.NodeName, len(rawNodes))
	for i, n := range rawNodes {
		s, ok := n.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return nil, envelope.InvalidInput("dag.nodes[%d] must be a non-empty string, got %s", i, dagArgKind(n)).WithDetails("index", i)
		}
		if len(s) > dag.MaxNameLength {
			return nil, envelope.InvalidInput("dag.nodes[%d] is %d bytes long, over the limit of %d", i, len(s), dag.MaxNameLength).WithDetails("index", i)
		}
		nodes[i] = catalog.NodeName(s)
	}
	var pairs [][]string
	if raw, present := body["edges"]; present && raw != nil {
		list, ok := raw.([]any)
		if !ok {
			return nil, envelope.InvalidInput("'dag.edges' must be a list of [src, dst] pairs, got %s", dagArgKind(raw))
		}
		pairs = make([][]string, len(list))
		for i, e := range list {
			pair, ok := e.([]any)
			if !ok {
				return nil, envelope.InvalidInput("dag.edges[%d] must be a [src, dst] pair of non-empty strings, got %s", i, dagArgKind(e)).WithDetails("index", i)
			}
			strs := make([]string, len(pair))
			for j, x := range pair {
				strs[j], _ = x.(string) // a non-string stays "" and is refused below
			}
			pairs[i] = strs
		}
	}
	edges, err := dagCheckEdges(pairs, "dag.edges")
	if err != nil {
		return nil, err
	}
	return dag.New(nodes, edges), nil
}

// dagGiven reports whether a call passed a DAG at all, inline (dag), as
// a file (dag_file) or as a shared DAG's id (dag_id), for the tools where
// the DAG is optional.
func dagGiven(dagArg map[string]any, dagFile string, dagID ...string) bool {
	return dagArg != nil || strings.TrimSpace(dagFile) != "" || (len(dagID) > 0 && strings.TrimSpace(dagID[0]) != "")
}

// dagIDArg is the dag_id argument of every tool that takes a DAG: a
// shared DAG of the pipeline catalog, in place of dag or dag_file. Its
// description is the pipeline_catalog tools' own, so hosts see one shared
// argument.
type dagIDArg struct {
	DagID string `json:"dag_id,omitempty" jsonschema_description:"Id of a shared DAG (see pipeline_catalog.list)."`
}

// dagHint is the DAG argument of a next step: the one the call gave
// (dag_id, dag_file, or the DAG inline).
func dagHint(h map[string]any, dagArg map[string]any, dagFile, dagID string) map[string]any {
	switch {
	case strings.TrimSpace(dagID) != "":
		h["dag_id"] = dagID
	case strings.TrimSpace(dagFile) != "":
		h["dag_file"] = dagFile
	case dagArg != nil:
		h["dag"] = dagArg
	}
	return h
}

// dagObject is an inline DAG argument: {"nodes": [...], "edges": [[src,
// dst], ...]}, or the serialized form {"dag": {"nodes", "edges"}, ...}. Its
// schema bounds the nodes, the edges and the node names (dag.MaxNodes,
// dag.MaxEdges, dag.MaxNameLength); other keys pass, and loadDAGArg checks
// the same bounds on the serialized form.
type dagObject map[string]any

// JSONSchema implements the schema reflector's hook: an object whose nodes
// and edges are bounded lists of names.
func (dagObject) JSONSchema() *jsonschema.Schema {
	u := func(n int) *uint64 { v := uint64(n); return &v }
	name := func() *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", MaxLength: u(dag.MaxNameLength)}
	}
	props := jsonschema.NewProperties()
	props.Set("nodes", &jsonschema.Schema{Type: "array", Items: name(), MaxItems: u(dag.MaxNodes)})
	props.Set("edges", &jsonschema.Schema{Type: "array", MaxItems: u(dag.MaxEdges),
		Items: &jsonschema.Schema{Type: "array", Items: name()}})
	return &jsonschema.Schema{Type: "object", Properties: props}
}

// dagSizeError is the too_large failure of a DAG over dag.MaxNodes or
// dag.MaxEdges, nil for one within them.
func dagSizeError(nodes, edges int) error {
	if err := dag.CheckSize(nodes, edges); err != nil {
		return envelope.Errorf(envelope.CodeTooLarge, "%v", err).
			WithDetails("nodes", nodes, "edges", edges, "max_nodes", dag.MaxNodes, "max_edges", dag.MaxEdges).
			WithRemedy("split the pipeline into smaller DAGs")
	}
	return nil
}

func dagCheckEdges(pairs [][]string, field string) ([]dag.Edge, error) {
	out := make([]dag.Edge, 0, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 || strings.TrimSpace(p[0]) == "" || strings.TrimSpace(p[1]) == "" {
			return nil, envelope.InvalidInput("%s[%d] must be a [src, dst] pair of two non-empty strings, got %s", field, i, dagArgKind(p)).
				WithDetails("index", i, "got", p)
		}
		out = append(out, dag.Edge{From: catalog.NodeName(p[0]), To: catalog.NodeName(p[1])})
	}
	return out, nil
}

// dagWarnings reports what the DAG ignored or left dangling: repeated nodes
// and edges, and edge endpoints that are not declared nodes.
func dagWarnings(d *dag.PipelineDAG) []string {
	w := dagDuplicateWarnings(d)
	if u := d.UndeclaredEndpoints(); len(u) > 0 {
		w = append(w, fmt.Sprintf("edge endpoint(s) not declared in nodes: %s (a typo? see dag.validate_integrity)", strlist.Join(u, ", ")))
	}
	return w
}

// dagDuplicateWarnings reports the repeated nodes and edges the DAG ignored.
func dagDuplicateWarnings(d *dag.PipelineDAG) []string {
	var w []string
	dn, de := d.Duplicates()
	if len(dn) > 0 {
		w = append(w, fmt.Sprintf("ignored repeated node(s): %s", strlist.Join(dn, ", ")))
	}
	if len(de) > 0 {
		s := make([]string, len(de))
		for i, e := range de {
			s[i] = e.String()
		}
		w = append(w, fmt.Sprintf("ignored repeated edge(s): %s", strings.Join(s, "; ")))
	}
	return w
}

// dagArgKind renders a value for an error message: short JSON, or its kind.
func dagArgKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	case []string:
		return fmt.Sprintf("%q", x)
	case []any:
		return fmt.Sprintf("a list of %d element(s)", len(x))
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%v", x)
	}
}
