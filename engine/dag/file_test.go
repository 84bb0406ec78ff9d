package dag

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/engine/catalog"
)

func TestReadOriginalWriterFile(t *testing.T) {
	// A file as a Python writer makes it (ensure_ascii escapes, microsecond
	// timestamp): cursus (Python)'s PipelineDAGWriter wrote this one.
	d, info, err := ReadFile(nil, "testdata/original_writer_xgboost_e2e.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Nodes(), e2eNodes) || !reflect.DeepEqual(d.Edges(), e2eEdges) {
		t.Fatalf("graph differs: %v %v", d.Nodes(), d.Edges())
	}
	if info.Version != "1.0.0" || info.CreatedAt != "2026-11-30T02:09:59.920360+00:00" {
		t.Errorf("info %+v", info)
	}
	if info.Metadata["author"] != "Zoë" || info.Metadata["name"] != "xgboost_complete_e2e" {
		t.Errorf("metadata %v", info.Metadata)
	}
	// The statistics we compute equal the ones stored in the file.
	ours, _ := json.Marshal(d.Statistics())
	theirs, _ := json.Marshal(info.Statistics)
	var a, b map[string]any
	_ = json.Unmarshal(ours, &a)
	_ = json.Unmarshal(theirs, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("statistics\n ours   %s\n theirs %s", ours, theirs)
	}
	// The compact form (no indentation), as an inline answer has it.
	d2, info2, err := ReadFile(nil, "testdata/original_writer_compact.json")
	if err != nil || d2.NodeCount() != 10 || info2.Metadata["compact"] != true {
		t.Fatalf("compact: %v %+v", err, info2)
	}
}

func TestReadCatalogFile(t *testing.T) {
	// The shared pipeline catalog's format: no version, dag.description.
	d, info, err := ReadFile(nil, "testdata/catalog_xgboost_complete_e2e.dag.json")
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != "" || !strings.HasPrefix(info.Description, "Complete XGBoost") || info.Metadata["name"] != "xgboost_complete_e2e" {
		t.Errorf("info %+v", info)
	}
	if !reflect.DeepEqual(d.Nodes(), e2eNodes) || d.EdgeCount() != 11 {
		t.Errorf("graph %v", d.Nodes())
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "dag.json")
	meta := map[string]any{"k": "v", "n": json.Number("2")}
	src := New(e2eNodes, e2eEdges)
	if err := WriteFile(nil, path, src, meta, true); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["version"] != "1.0.0" {
		t.Errorf("version %v", doc["version"])
	}
	// The keys come in File's field order.
	text := string(raw)
	last := -1
	for _, k := range []string{`"version"`, `"created_at"`, `"metadata"`, `"dag"`, `"statistics"`, `"node_count"`, `"isolated_nodes"`} {
		i := strings.Index(text, k)
		if i <= last {
			t.Fatalf("key %s out of order", k)
		}
		last = i
	}
	if _, err := time.Parse("2006-01-02T15:04:05.999999-07:00", doc["created_at"].(string)); err != nil || !strings.HasSuffix(doc["created_at"].(string), "+00:00") {
		t.Errorf("created_at %v %v", doc["created_at"], err)
	}
	got, info, err := ReadFile(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Nodes(), src.Nodes()) || !reflect.DeepEqual(got.Edges(), src.Edges()) {
		t.Fatal("round trip changed the graph")
	}
	if info.Metadata["k"] != "v" || info.Statistics["max_depth"] == nil {
		t.Fatalf("info %+v", info)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries", len(entries))
	}
	// Compact encoding and empty metadata.
	b, err := NewFile(New([]catalog.NodeName{"a"}, nil), nil, time.Unix(0, 0)).Encode(false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":"1.0.0","created_at":"1970-01-01T00:00:00.000000+00:00","metadata":{},"dag":{"nodes":["a"],"edges":[]},"statistics":{"node_count":1,"edge_count":0,"has_cycles":false,"entry_nodes":["a"],"exit_nodes":["a"],"max_depth":0,"isolated_nodes":["a"]}}`
	if string(b) != want {
		t.Fatalf("compact\n got %s\nwant %s", b, want)
	}
}

func TestWriteChecks(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		d    *PipelineDAG
		want string
	}{
		{"cycle", New([]catalog.NodeName{"a", "b"}, []Edge{{"a", "b"}, {"b", "a"}}), "DAG validation failed: DAG has cycles or disconnected nodes"},
		{"empty", New(nil, nil), "Cannot write empty DAG (no nodes)"},
		{"dangling", New([]catalog.NodeName{"a"}, []Edge{{"a", "x"}}), "Edge references non-existent destination node: x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".json")
			err := WriteFile(nil, path, c.d, nil, true)
			var we *WriteCheckError
			if !errors.As(err, &we) || we.Error() != c.want {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Fatal("a refused DAG was written")
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		`not json`: "Invalid JSON format",
		`[1,2]`:    "must be a JSON object",
		`{"version":"2.0.0","dag":{"nodes":[],"edges":[]}}`: "Unsupported version",
		`{"version":2,"dag":{"nodes":[],"edges":[]}}`:       "Unsupported version",
		`{"metadata":{}}`:                           "Missing required field: 'dag'",
		`{"dag":[]}`:                                "'dag' must be an object",
		`{"dag":{"edges":[]}}`:                      "Missing required field: 'dag.nodes'",
		`{"dag":{"nodes":[]}}`:                      "Missing required field: 'dag.edges'",
		`{"dag":{"nodes":"a","edges":[]}}`:          "'dag.nodes' must be a list",
		`{"dag":{"nodes":[],"edges":{}}}`:           "'dag.edges' must be a list",
		`{"dag":{"nodes":[1],"edges":[]}}`:          "dag.nodes[0] must be a string",
		`{"dag":{"nodes":["a"],"edges":[["a"]]}}`:   "Invalid edge format",
		`{"dag":{"nodes":["a"],"edges":[["a",2]]}}`: "Expected [src, dst] strings",
		`{"dag":{"nodes":[],"edges":[]}} {}`:        "data after the JSON document",
	}
	for in, want := range cases {
		_, _, err := Parse([]byte(in))
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", in, err, want)
		}
	}
	// Bad JSON is reported with its position.
	for in, want := range map[string]string{
		"{\"dag\": {\"nodes\": [\"a\",\n  \"b\"]\n  \"edges\": []}}": "line 3, column 3 (byte ",
		"{\"dag\": {\"nodes\": [], \"edges\": []}}\n\n  {}":          "line 3, column 3 (byte 39): data after the JSON document",
		`{"dag": {"nodes": [`: "line 1, column 19 (byte 18): unexpected end of JSON input",
	} {
		if _, _, err := Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
	// A version with major 1 and a missing version are accepted.
	for _, in := range []string{`{"version":"1.7","dag":{"nodes":["a"],"edges":[]}}`, `{"version":1,"dag":{"nodes":["a"],"edges":[]}}`, `{"dag":{"nodes":["a"],"edges":[]}}`} {
		if _, _, err := Parse([]byte(in)); err != nil {
			t.Errorf("Parse(%s): %v", in, err)
		}
	}
	_, _, err := ReadFile(nil, filepath.Join(t.TempDir(), "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte("{"), 0o644)
	_, _, err = ReadFile(nil, bad)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Path != bad {
		t.Fatalf("malformed file: %v", err)
	}
}

func TestEdgeJSON(t *testing.T) {
	var es []Edge
	if err := json.Unmarshal([]byte(`[["a","b"]]`), &es); err != nil || es[0] != (Edge{"a", "b"}) {
		t.Fatalf("%v %v", es, err)
	}
	for _, bad := range []string{`[["a"]]`, `[["a",1]]`, `["ab"]`} {
		if err := json.Unmarshal([]byte(bad), &es); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	b, _ := json.Marshal(Edge{"a", "b"})
	if string(b) != `["a","b"]` {
		t.Fatal(string(b))
	}
}
