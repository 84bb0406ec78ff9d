package smclient

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// MaxChangedPaths is the most changed JSON paths a StepChange lists.
const MaxChangedPaths = 12

// PipelineDiff is what Upsert would do with an UpsertInput, found without changing anything:
// the uploads it would make, and how the deployed pipeline differs from the input.
type PipelineDiff struct {
	PipelineARN string `json:"pipeline_arn,omitempty"`
	// Exists says whether the pipeline is deployed; when not, the upsert would create it.
	Exists bool `json:"exists"`
	// Unchanged is true when the upsert would leave the pipeline alone (no new version): the
	// stored definition is JSON-equal and the role, description and parallelism are the same.
	Unchanged bool `json:"unchanged"`
	// Uploads are the S3 objects of the manifest the upsert would write (missing or different);
	// UploadsUnchanged counts those already in place.
	Uploads          []string `json:"uploads"`
	UploadsUnchanged int      `json:"uploads_unchanged"`
	// Steps compares the definitions' steps (Condition branches included) by name.
	StepsAdded     []string     `json:"steps_added"`
	StepsRemoved   []string     `json:"steps_removed"`
	StepsChanged   []StepChange `json:"steps_changed"`
	StepsUnchanged int          `json:"steps_unchanged"`
	// Parameters compares the declared parameters by name.
	ParametersAdded   []string `json:"parameters_added"`
	ParametersRemoved []string `json:"parameters_removed"`
	ParametersChanged []string `json:"parameters_changed"`
	// Settings are the other differences: "role", "description", "parallelism", and the
	// definition's other members ("PipelineExperimentConfig", ...), each "<what>: <deployed> ->
	// <new>".
	Settings []string `json:"settings"`
}

// StepChange is one step whose definition differs: the JSON paths that differ (at most
// MaxChangedPaths; More counts the rest).
type StepChange struct {
	Name  string   `json:"name"`
	Type  string   `json:"type"`
	Paths []string `json:"paths"`
	More  int      `json:"more,omitempty"`
}

// Diff compares in with what is deployed, as Upsert would before acting: it validates in
// (ValidateInput), checks each manifest object in S3 (HeadObject), and reads the pipeline
// (DescribePipeline). It creates, updates and uploads nothing.
func Diff(ctx context.Context, in UpsertInput) (*PipelineDiff, error) {
	if err := ValidateInput(in); err != nil {
		return nil, err
	}
	cfg, err := awsConfig(ctx, in.Config, in.Region)
	if err != nil {
		return nil, err
	}
	s3c := newS3Client(cfg)
	smc := newAPI(sm.NewFromConfig(cfg))
	d := &PipelineDiff{Uploads: []string{}, StepsAdded: []string{}, StepsRemoved: []string{}, StepsChanged: []StepChange{},
		ParametersAdded: []string{}, ParametersRemoved: []string{}, ParametersChanged: []string{}, Settings: []string{}}
	for _, item := range dedupeManifest(in.Manifest) {
		same, ue := inPlace(ctx, s3c, item.S3URI, item.SHA256, item.Size)
		if ue != nil {
			return nil, ue
		}
		if same {
			d.UploadsUnchanged++
		} else {
			d.Uploads = append(d.Uploads, item.S3URI)
		}
	}
	stored, err := smc.describePipeline(ctx, &sm.DescribePipelineInput{PipelineName: aws.String(in.PipelineName)})
	if err != nil && !isPipelineNotFound(err) {
		return nil, newUpsertError("sagemaker:DescribePipeline", in.PipelineName, err)
	}
	if err != nil {
		d.StepsAdded = stepNames(in.DefinitionJSON)
		params, _ := DeclaredParameters(in.DefinitionJSON)
		for _, p := range params {
			d.ParametersAdded = append(d.ParametersAdded, p.Name)
		}
		return d, nil
	}
	d.Exists, d.PipelineARN = true, aws.ToString(stored.PipelineArn)
	d.Unchanged = sameStoredPipeline(stored, in)
	if r := aws.ToString(stored.RoleArn); r != in.RoleARN {
		d.Settings = append(d.Settings, fmt.Sprintf("role: %s -> %s", r, in.RoleARN))
	}
	if v := aws.ToString(stored.PipelineDescription); in.Description != "" && v != in.Description {
		d.Settings = append(d.Settings, fmt.Sprintf("description: %q -> %q", v, in.Description))
	}
	if in.MaxParallelExecutionSteps > 0 {
		was := 0
		if pc := stored.ParallelismConfiguration; pc != nil {
			was = int(aws.ToInt32(pc.MaxParallelExecutionSteps))
		}
		if was != in.MaxParallelExecutionSteps {
			d.Settings = append(d.Settings, fmt.Sprintf("parallelism: %d -> %d", was, in.MaxParallelExecutionSteps))
		}
	}
	diffDefinitions(aws.ToString(stored.PipelineDefinition), in.DefinitionJSON, d)
	return d, nil
}

// inPlace reports whether the object at uri already holds the content (as Upsert's upload
// decides).
func inPlace(ctx context.Context, c *s3.Client, uri, sum string, size int64) (bool, *UpsertError) {
	bucket, key, _ := parseS3URI(uri)
	raw, _ := hex.DecodeString(sum)
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: s3types.ChecksumModeEnabled})
	switch status := httpStatus(err); {
	case err == nil:
		return sameObject(head, size, sum, base64.StdEncoding.EncodeToString(raw)), nil
	case status == http.StatusNotFound || status == http.StatusForbidden:
		return false, nil
	default:
		return false, newUpsertError("s3:HeadObject", uri, err)
	}
}

// flatSteps decodes a definition's steps by name, Condition branches included (a Condition's
// branches replaced by the names of their steps).
func flatSteps(definitionJSON string) (map[string]map[string]any, []string, map[string]any) {
	v, err := decodeJSON(definitionJSON)
	top, _ := v.(map[string]any)
	if err != nil || top == nil {
		return map[string]map[string]any{}, nil, map[string]any{}
	}
	steps := map[string]map[string]any{}
	var order []string
	var walk func(list []any)
	walk = func(list []any) {
		for _, x := range list {
			s, _ := x.(map[string]any)
			name, _ := s["Name"].(string)
			if name == "" {
				continue
			}
			cp := make(map[string]any, len(s))
			for k, v := range s {
				cp[k] = v
			}
			if args, ok := s["Arguments"].(map[string]any); ok && s["Type"] == "Condition" {
				a := make(map[string]any, len(args))
				for k, v := range args {
					a[k] = v
				}
				for _, b := range []string{"IfSteps", "ElseSteps"} {
					branch, _ := args[b].([]any)
					var names []any
					for _, bs := range branch {
						if m, ok := bs.(map[string]any); ok {
							names = append(names, m["Name"])
						}
					}
					a[b] = names
					defer walk(branch)
				}
				cp["Arguments"] = a
			}
			steps[name] = cp
			order = append(order, name)
		}
	}
	list, _ := top["Steps"].([]any)
	walk(list)
	return steps, order, top
}

func stepNames(definitionJSON string) []string {
	_, order, _ := flatSteps(definitionJSON)
	if order == nil {
		return []string{}
	}
	return order
}

// diffDefinitions fills d's step, parameter and other-member differences.
func diffDefinitions(deployed, next string, d *PipelineDiff) {
	was, wasOrder, wasTop := flatSteps(deployed)
	now, nowOrder, nowTop := flatSteps(next)
	for _, n := range nowOrder {
		old, ok := was[n]
		if !ok {
			d.StepsAdded = append(d.StepsAdded, n)
			continue
		}
		var paths []string
		diffPaths("", old, now[n], &paths)
		if len(paths) == 0 {
			d.StepsUnchanged++
			continue
		}
		typ, _ := now[n]["Type"].(string)
		c := StepChange{Name: n, Type: typ, Paths: paths}
		if len(paths) > MaxChangedPaths {
			c.Paths, c.More = paths[:MaxChangedPaths], len(paths)-MaxChangedPaths
		}
		d.StepsChanged = append(d.StepsChanged, c)
	}
	for _, n := range wasOrder {
		if _, ok := now[n]; !ok {
			d.StepsRemoved = append(d.StepsRemoved, n)
		}
	}
	params := func(top map[string]any) map[string]any {
		out := map[string]any{}
		list, _ := top["Parameters"].([]any)
		for _, p := range list {
			if m, ok := p.(map[string]any); ok {
				if n, _ := m["Name"].(string); n != "" {
					out[n] = m
				}
			}
		}
		return out
	}
	wp, np := params(wasTop), params(nowTop)
	for _, n := range mapkeys.Sorted(np) {
		if old, ok := wp[n]; !ok {
			d.ParametersAdded = append(d.ParametersAdded, n)
		} else if !jsonValueEqual(old, np[n]) {
			d.ParametersChanged = append(d.ParametersChanged, n)
		}
	}
	for _, n := range mapkeys.Sorted(wp) {
		if _, ok := np[n]; !ok {
			d.ParametersRemoved = append(d.ParametersRemoved, n)
		}
	}
	keys := map[string]bool{}
	for k := range wasTop {
		keys[k] = true
	}
	for k := range nowTop {
		keys[k] = true
	}
	for _, k := range mapkeys.Sorted(keys) {
		if k == "Steps" || k == "Parameters" {
			continue
		}
		if !jsonValueEqual(wasTop[k], nowTop[k]) {
			d.Settings = append(d.Settings, "definition "+k+" differs")
		}
	}
}

// diffPaths appends the dotted paths where a and b differ (a list that differs in length is one
// path).
func diffPaths(path string, a, b any, out *[]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, orRoot(path))
			return
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		for _, k := range mapkeys.Sorted(keys) {
			xv, xok := x[k]
			yv, yok := y[k]
			if xok != yok {
				*out = append(*out, join(k))
				continue
			}
			diffPaths(join(k), xv, yv, out)
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			*out = append(*out, orRoot(path))
			return
		}
		for i := range x {
			diffPaths(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], out)
		}
	default:
		if !jsonValueEqual(a, b) {
			*out = append(*out, orRoot(path))
		}
	}
}

func orRoot(path string) string {
	if path == "" {
		return "(the whole value)"
	}
	return path
}
