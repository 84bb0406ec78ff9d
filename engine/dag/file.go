package dag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/internal/jsonpos"
	"github.com/cursus-go/cursus/internal/safefs"
)

// The size limits of a DAG, inline or in a file. The tools that take a DAG
// do work and answer in proportion to it; these bounds keep the largest
// DAG any of them accepts within a call's memory budget (256 MiB peak for
// a fresh process, tools' TestWorstCasesStayUnderBudget), far above any
// pipeline SageMaker runs.
const (
	// MaxNodes is the most nodes a DAG may have. It is a bound on a call's
	// memory, not a SageMaker rule: SageMaker stops far earlier, as
	// CreatePipeline takes a definition of at most 1 MiB inline (a compiled
	// step is 1-3 KB: about 400 steps) and a larger one only from S3. At
	// 3,000 nodes compile.definition peaks at 164-193 MiB in a fresh
	// process and answers 8.1 MB (docs/performance.md, "Compile speed").
	MaxNodes = 3000
	// MaxEdges is the most edges a DAG may have.
	MaxEdges = 15000
	// MaxNameLength is the longest node name, in bytes.
	MaxNameLength = 256
)

// CheckSize reports a DAG over MaxNodes nodes or MaxEdges edges.
func CheckSize(nodes, edges int) error {
	switch {
	case nodes > MaxNodes:
		return fmt.Errorf("the DAG has %d nodes, over the limit of %d (a bound on a call's memory; a SageMaker pipeline is far smaller: CreatePipeline takes a definition of at most 1 MiB inline, about 400 compiled steps)", nodes, MaxNodes)
	case edges > MaxEdges:
		return fmt.Errorf("the DAG has %d edges, over the limit of %d", edges, MaxEdges)
	}
	return nil
}

// SchemaVersion is the version written into DAG files.
const SchemaVersion = "1.0.0"

// supportedMajor is the only major version Parse accepts.
const supportedMajor = "1"

// File is the serialized DAG document, its fields in the order they are
// written (the order cursus (Python) writes them, so files diff cleanly).
type File struct {
	Version    string         `json:"version"`
	CreatedAt  string         `json:"created_at"`
	Metadata   map[string]any `json:"metadata"`
	DAG        FileGraph      `json:"dag"`
	Statistics Statistics     `json:"statistics"`
}

// FileGraph is the "dag" object of a DAG file.
type FileGraph struct {
	// Description is present in the shared pipeline catalog's files only.
	Description string               `json:"description,omitempty"`
	Nodes       []catalog.NodeName   `json:"nodes"`
	Edges       [][]catalog.NodeName `json:"edges"`
}

// FileInfo is what Parse reports besides the graph: the document's fields
// as written (nil or empty when absent).
type FileInfo struct {
	Version     string         // "" when the file has none
	CreatedAt   any            // usually an ISO-8601 string; nil when absent
	Description string         // dag.description (pipeline catalog files)
	Metadata    map[string]any // never nil
	Statistics  map[string]any // as stored in the file; never nil
}

// FormatError reports a DAG document that cannot be read as one.
type FormatError struct {
	Path   string // "" when parsing bytes
	Reason string
}

// Error describes the problem and the file.
func (e *FormatError) Error() string {
	if e.Path == "" {
		return "invalid DAG document: " + e.Reason
	}
	return fmt.Sprintf("invalid DAG file %s: %s", e.Path, e.Reason)
}

// WriteCheckError reports a DAG that WriteFile refuses to write.
type WriteCheckError struct {
	Reason string
}

// Error returns the reason.
func (e *WriteCheckError) Error() string { return e.Reason }

// NewFile builds the document for d with the given metadata (nil means an
// empty object) and creation time.
func NewFile(d *PipelineDAG, metadata map[string]any, createdAt time.Time) *File {
	if metadata == nil {
		metadata = map[string]any{}
	}
	return &File{
		Version:    SchemaVersion,
		CreatedAt:  createdAt.UTC().Format("2006-01-02T15:04:05.000000-07:00"),
		Metadata:   metadata,
		DAG:        FileGraph{Nodes: d.Nodes(), Edges: d.EdgePairs()},
		Statistics: d.Statistics(),
	}
}

// Encode renders the document as JSON: indented by two spaces when pretty,
// compact otherwise.
func (f *File) Encode(pretty bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// CheckWritable checks a DAG before it is written: the graph must sort,
// have at least one node and no edge may name an undeclared node. It
// returns a *WriteCheckError.
func CheckWritable(d *PipelineDAG) error {
	if _, err := d.TopologicalSort(); err != nil {
		return &WriteCheckError{Reason: "DAG validation failed: " + err.Error()}
	}
	if d.NodeCount() == 0 {
		return &WriteCheckError{Reason: "Cannot write empty DAG (no nodes)"}
	}
	for _, e := range d.edges {
		if !d.HasNode(e.From) {
			return &WriteCheckError{Reason: fmt.Sprintf("Edge references non-existent source node: %s", e.From)}
		}
		if !d.HasNode(e.To) {
			return &WriteCheckError{Reason: fmt.Sprintf("Edge references non-existent destination node: %s", e.To)}
		}
	}
	return nil
}

// WriteFile checks d (CheckWritable) and writes its document to path
// through fsys (nil: the trusted file-access layer), atomically and
// confined as fsys is.
func WriteFile(fsys *safefs.FS, path string, d *PipelineDAG, metadata map[string]any, pretty bool) error {
	if err := CheckWritable(d); err != nil {
		return err
	}
	b, err := NewFile(d, metadata, time.Now()).Encode(pretty)
	if err != nil {
		return err
	}
	return fsys.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadFile loads a DAG file through fsys (nil: the trusted file-access
// layer). A file fsys cannot read (absent, outside its root, not a regular
// file, over the size cap of DAG files) fails with fsys's *safefs.PathError;
// a file that is not a DAG document with a *FormatError.
func ReadFile(fsys *safefs.FS, path string) (*PipelineDAG, *FileInfo, error) {
	b, err := fsys.ReadFile(path, safefs.KindDAG)
	if err != nil {
		return nil, nil, err
	}
	d, info, err := Parse(b)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, nil, err
	}
	return d, info, nil
}

// Parse reads a DAG document: a version,
// when present, must have major version 1; "dag" must hold "nodes" (a list
// of strings) and "edges" (a list of [src, dst] string pairs). Files of the
// pipeline catalog (no version, dag.description) parse the same way.
// Errors are *FormatError.
func Parse(data []byte) (*PipelineDAG, *FileInfo, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, &FormatError{Reason: "Invalid JSON format: " + jsonpos.Locate(data, err).Error()}
	}
	if dec.More() {
		return nil, nil, &FormatError{Reason: "Invalid JSON format: " + jsonpos.Trailing(data, dec).Error()}
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, &FormatError{Reason: "the document must be a JSON object"}
	}
	info := &FileInfo{Metadata: map[string]any{}, Statistics: map[string]any{}}
	if v, present := top["version"]; present && v != nil {
		s := fmt.Sprint(v)
		if major, _, _ := strings.Cut(s, "."); major != supportedMajor {
			return nil, nil, &FormatError{Reason: fmt.Sprintf("Unsupported version: %q (supported major versions: [%q])", s, supportedMajor)}
		}
		info.Version = s
	}
	info.CreatedAt = top["created_at"]
	if m, ok := top["metadata"].(map[string]any); ok {
		info.Metadata = m
	}
	if m, ok := top["statistics"].(map[string]any); ok {
		info.Statistics = m
	}
	raw, present := top["dag"]
	if !present {
		return nil, nil, &FormatError{Reason: "Missing required field: 'dag'"}
	}
	body, ok := raw.(map[string]any)
	if !ok {
		return nil, nil, &FormatError{Reason: "'dag' must be an object"}
	}
	if s, ok := body["description"].(string); ok {
		info.Description = s
	}
	rawNodes, present := body["nodes"]
	if !present {
		return nil, nil, &FormatError{Reason: "Missing required field: 'dag.nodes'"}
	}
	rawEdges, present := body["edges"]
	if !present {
		return nil, nil, &FormatError{Reason: "Missing required field: 'dag.edges'"}
	}
	nodeList, ok := rawNodes.([]any)
	if !ok {
		return nil, nil, &FormatError{Reason: "'dag.nodes' must be a list"}
	}
	edgeList, ok := rawEdges.([]any)
	if !ok {
		return nil, nil, &FormatError{Reason: "'dag.edges' must be a list"}
	}
	if err := CheckSize(len(nodeList), len(edgeList)); err != nil {
		return nil, nil, &FormatError{Reason: err.Error()}
	}
	nodes := make([]catalog.NodeName, len(nodeList))
	for i, n := range nodeList {
		s, ok := n.(string)
		if !ok {
			return nil, nil, &FormatError{Reason: fmt.Sprintf("dag.nodes[%d] must be a string, got %s", i, jsonText(n))}
		}
		if len(s) > MaxNameLength {
			return nil, nil, &FormatError{Reason: fmt.Sprintf("dag.nodes[%d] is %d bytes long, over the limit of %d", i, len(s), MaxNameLength)}
		}
		nodes[i] = catalog.NodeName(s)
	}
	edges := make([]Edge, len(edgeList))
	for i, e := range edgeList {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			return nil, nil, &FormatError{Reason: fmt.Sprintf("Invalid edge format: %s (dag.edges[%d]). Expected [src, dst]", jsonText(e), i)}
		}
		from, ok1 := pair[0].(string)
		to, ok2 := pair[1].(string)
		if !ok1 || !ok2 {
			return nil, nil, &FormatError{Reason: fmt.Sprintf("Invalid edge format: %s (dag.edges[%d]). Expected [src, dst] strings", jsonText(e), i)}
		}
		edges[i] = Edge{From: catalog.NodeName(from), To: catalog.NodeName(to)}
	}
	return New(nodes, edges), info, nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
