package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
)

// DAG is a pipeline DAG as the tools take it inline.
type DAG struct {
	Nodes []string   `json:"nodes"`
	Edges [][]string `json:"edges"`
}

// object returns the DAG as a tool argument.
func (d DAG) object() map[string]any {
	edges := make([]any, 0, len(d.Edges))
	for _, e := range d.Edges {
		edges = append(edges, []any{e[0], e[1]})
	}
	nodes := make([]any, 0, len(d.Nodes))
	for _, n := range d.Nodes {
		nodes = append(nodes, n)
	}
	return map[string]any{"nodes": nodes, "edges": edges}
}

// dagFromValue reads a DAG from an inline argument: flat {nodes, edges} or
// wrapped {dag: {nodes, edges}}.
func dagFromValue(v any) (DAG, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return DAG{}, err
	}
	var wrapped struct {
		DAG *DAG `json:"dag"`
	}
	if json.Unmarshal(b, &wrapped) == nil && wrapped.DAG != nil && len(wrapped.DAG.Nodes) > 0 {
		return *wrapped.DAG, nil
	}
	var d DAG
	if err := json.Unmarshal(b, &d); err != nil {
		return DAG{}, fmt.Errorf("dag: %w", err)
	}
	return d, nil
}

// loadDAGFile reads a DAG file through dag.deserialize.
func loadDAGFile(ctx context.Context, s *Step, path string) (DAG, error) {
	resp, err := s.Require(ctx, "dag.deserialize", map[string]any{"dag_file": s.Abs(path)})
	if err != nil {
		return DAG{}, err
	}
	var d DAG
	if err := resp.Decode(&d); err != nil {
		return DAG{}, Gate("dag.deserialize", resp, "unexpected answer: %v", err)
	}
	return d, nil
}

// saveDAG writes a DAG file through dag.serialize and records it.
func saveDAG(ctx context.Context, s *Step, d DAG, path string, metadata map[string]any) error {
	args := map[string]any{"dag": d.object(), "output_file": s.Abs(path)}
	if metadata != nil {
		args["metadata"] = metadata
	}
	if _, err := s.Require(ctx, "dag.serialize", args); err != nil {
		return err
	}
	return s.Record(path)
}

// firstError returns the first non-nil error of errs (every call that
// produced them has run), or nil: for setting several variables at once.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// dagIntegrity is the part of dag.validate_integrity's answer a gate reads.
type dagIntegrity struct {
	IsValid bool                `json:"is_valid"`
	Issues  map[string][]string `json:"issues"`
}

// validateIntegrity calls dag.validate_integrity on a DAG, keeps its answer
// in reports/ (under key) and decodes it; the phase gates on IsValid.
func validateIntegrity(ctx context.Context, s *Step, d DAG, key ...string) (Response, dagIntegrity, error) {
	var iv dagIntegrity
	resp, err := s.RequireAndReport(ctx, "dag.validate_integrity", withWorkspace(s, "dag.validate_integrity", map[string]any{"dag": d.object()}), key...)
	if err != nil {
		return resp, iv, err
	}
	if err := resp.Decode(&iv); err != nil {
		return resp, iv, Gate("dag.validate_integrity", resp, "unexpected answer: %v", err)
	}
	return resp, iv, nil
}

// compileValidate calls compile.validate on a DAG file and a config file
// (args), keeps its answer in reports/ (under key) and decodes it; the
// phase gates on IsValid with a message of its own.
func compileValidate(ctx context.Context, s *Step, args map[string]any, key ...string) (Response, compiler.ValidationResult, error) {
	cv, err := s.RequireAndReport(ctx, "compile.validate", args, key...)
	if err != nil {
		return cv, compiler.ValidationResult{}, err
	}
	vr, err := dataAs[compiler.ValidationResult](cv)
	if err != nil {
		return cv, vr, Gate("compile.validate", cv, "unexpected answer: %v", err)
	}
	return cv, vr, nil
}

// stringsOf converts a JSON array of strings.
func stringsOf(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// relFrom returns target relative to the directory dir (both relative to
// the project root), with forward slashes.
func relFrom(dir, target string) string {
	r, err := filepath.Rel(filepath.FromSlash(dir), filepath.FromSlash(target))
	if err != nil {
		return target
	}
	return filepath.ToSlash(r)
}

// mustJSON renders v compactly for messages and commands.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// PlaceholderMarker marks every placeholder string the workflows fill in
// (the same marker project.init uses), so a grep finds what still needs a
// real value.
const PlaceholderMarker = config.PlaceholderMarker

// placeholderByName are placeholders for well-known essential fields.
var placeholderByName = map[string]any{
	"role":             "arn:aws:iam::123456789012:role/replace-me-sagemaker-execution-role",
	"bucket":           "replace-me-bucket",
	"region":           "NA", // a code, as the field's allowed values once had first
	"author":           "replace-me",
	"service_name":     "replace-me-service",
	"pipeline_version": "0.1.0",
	"label_name":       "label",
	"id_name":          "id",
	"data_source":      "s3://replace-me-bucket/data/",
}

// placeholder returns a value for an essential field that passes its
// declaration (allowed values, pattern, bounds) and, for strings, carries
// PlaceholderMarker. ok is false when no candidate passes.
func placeholder(f config.Requirement) (any, bool) {
	var cands []any
	if v, ok := placeholderByName[f.Name]; ok {
		cands = append(cands, v)
	}
	cands = append(cands, f.AllowedValues...)
	switch f.Type {
	case "int":
		for _, n := range []float64{1, 0} {
			cands = append(cands, bound(f, n, true))
		}
	case "float":
		for _, n := range []float64{0.5, 1, 0} {
			cands = append(cands, bound(f, n, false))
		}
	case "bool":
		cands = append(cands, false, true)
	case "list":
		cands = append(cands, []any{PlaceholderMarker})
	case "map":
		cands = append(cands, map[string]any{})
	default:
		if strings.HasSuffix(f.Name, "_uri") || strings.HasSuffix(f.Name, "_source") || strings.HasSuffix(f.Name, "_location") || strings.HasSuffix(f.Name, "_path") {
			cands = append(cands, "s3://replace-me-bucket/"+f.Name+"/")
		}
		cands = append(cands, PlaceholderMarker, "replace_me", "REPLACE_ME", "ReplaceMe")
	}
	for _, c := range cands {
		if fieldAccepts(f, c) {
			return c, true
		}
	}
	return nil, false
}

func bound(f config.Requirement, n float64, integer bool) any {
	if f.Min != nil && n < *f.Min {
		n = *f.Min
	}
	if f.Max != nil && n > *f.Max {
		n = *f.Max
	}
	if integer {
		return int(math.Ceil(n))
	}
	return n
}

// fieldAccepts is a local pre-check of a candidate placeholder; the config
// tools (author.preflight_config, config.merge_save) remain the gate.
func fieldAccepts(f config.Requirement, v any) bool {
	if len(f.AllowedValues) > 0 {
		found := false
		for _, a := range f.AllowedValues {
			if fmt.Sprint(a) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	switch x := v.(type) {
	case string:
		if f.Type != "" && f.Type != "string" && f.Type != "any" {
			return false
		}
		if f.Pattern != "" {
			re, err := regexp.Compile(f.Pattern)
			if err == nil && !re.MatchString(x) {
				return false
			}
		}
	case int, float64:
		if f.Type != "int" && f.Type != "float" && f.Type != "any" {
			return false
		}
		n := 0.0
		switch y := x.(type) {
		case int:
			n = float64(y)
		case float64:
			n = y
		}
		if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
			return false
		}
	case bool:
		return f.Type == "bool" || f.Type == "any"
	case []any:
		return f.Type == "list" || f.Type == "any"
	case map[string]any:
		return f.Type == "map" || f.Type == "any"
	}
	return true
}

// isPlaceholder reports whether a value is a placeholder (the engine's
// placeholder set, config.IsPlaceholder).
func isPlaceholder(v any) bool { return config.IsPlaceholder(v) }

// nonNilStrings is s, or an empty list for nil (a JSON [] rather than null).
func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
