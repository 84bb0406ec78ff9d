package compiler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// The value checks of the readiness gate: a value of the right shape that
// SageMaker (or the step's own script) would still refuse. Each reads the
// typed definition or the configs; none encodes the definition.

// Blocker kinds of the value checks.
const (
	// BlockerInstanceType: an instance type the job's API does not take
	// (aws-sdk-go-v2 types.TrainingInstanceType, ProcessingInstanceType,
	// TransformInstanceType, ProductionVariantInstanceType).
	BlockerInstanceType = "invalid_instance_type"
	// BlockerImage: an image URI that is not an ECR image
	// (<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag|@digest]),
	// or one in another region than the pipeline's (SageMaker pulls no image
	// across regions).
	BlockerImage = "invalid_image"
	// BlockerNoFeatures: a trainer whose feature lists are all empty.
	BlockerNoFeatures = "no_features"
	// BlockerLabelDropped: a step reads a label column from a step that
	// writes the label only when its own label_name is set, and it is not
	// (or names another column).
	BlockerLabelDropped = "label_dropped"
	// BlockerConfirm: a value that is an example from the AWS documentation
	// or from this project's own examples and docs (an account id, a
	// bucket). Confirm items block a deploy (compile.dag upsert), not a
	// local run.
	BlockerConfirm = "confirm"
)

// nodeConfigs maps each checked node to its config.
func (in ReadinessInput) nodeConfigs() map[catalog.NodeName]*config.Config {
	out := map[catalog.NodeName]*config.Config{}
	for _, nc := range in.checkedConfigs() {
		if _, dup := out[nc.node]; !dup {
			out[nc.node] = nc.cfg
		}
	}
	return out
}

// literalValue returns the text a definition value stands for: a string
// literal, or the default of the parameter it gets. ok is false for an
// expression whose value is known only at run time.
func literalValue(v any, params map[string]any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case Get:
		if strings.HasPrefix(t.Get, "Parameters.") {
			s, ok := params[strings.TrimPrefix(t.Get, "Parameters.")].(string)
			return s, ok
		}
	case map[string]any:
		if g, _ := t["Get"].(string); strings.HasPrefix(g, "Parameters.") {
			s, ok := params[strings.TrimPrefix(g, "Parameters.")].(string)
			return s, ok
		}
	}
	return "", false
}

func parameterDefaults(d *Definition) map[string]any {
	m := map[string]any{}
	for _, p := range d.Parameters {
		m[p.Name] = p.DefaultValue
	}
	return m
}

// fieldHolding names the config field of c whose value is v: the field a
// blocker about a definition value points at ("" when none holds it), among
// the fields whose name contains part.
func fieldHolding(c *config.Config, v string, part string) string {
	if c == nil {
		return ""
	}
	for _, k := range mapkeys.Sorted(c.Values) {
		if s, ok := c.Values[k].(string); ok && s == v && strings.Contains(k, part) {
			return k
		}
	}
	return ""
}

// instanceTypeBlockers checks every instance type of the definition
// against the enum of the API its step calls.
func instanceTypeBlockers(in ReadinessInput) []Blocker {
	if in.Result == nil || in.Result.Definition == nil {
		return nil
	}
	def := in.Result.Definition
	params, nodeOf, cfgs := parameterDefaults(def), stepNodes(in.Result), in.nodeConfigs()
	var out []Blocker
	for _, s := range def.AllSteps() {
		node := nodeOf[s.Name]
		check := func(v any, at, api string, allowed map[string]bool) {
			it, ok := literalValue(v, params)
			if !ok || allowed[it] {
				return
			}
			field := fieldHolding(cfgs[node], it, "instance_type")
			path := "Steps[" + string(s.Name) + "].Arguments." + at
			if field != "" {
				path = string(cfgs[node].Key) + "." + field
			}
			out = append(out, Blocker{Kind: BlockerInstanceType, Node: node, Field: field, Path: path, Tool: "config.field_info",
				Problem: fmt.Sprintf("%q is not an instance type %s takes", it, api),
				Fix:     fmt.Sprintf("use an instance type %s lists, such as %s", api, suggestInstance(it, allowed))})
		}
		switch a := s.Arguments.(type) {
		case *ProcessingArguments:
			check(a.ProcessingResources.ClusterConfig.InstanceType, "ProcessingResources.ClusterConfig.InstanceType", "CreateProcessingJob", instanceTypes.processing)
		case *TrainingArguments:
			check(a.ResourceConfig.InstanceType, "ResourceConfig.InstanceType", "CreateTrainingJob", instanceTypes.training)
		case *TuningArguments:
			check(a.TrainingJobDefinition.ResourceConfig.InstanceType, "TrainingJobDefinition.ResourceConfig.InstanceType", "CreateHyperParameterTuningJob", instanceTypes.training)
		case *TransformArguments:
			check(a.TransformResources.InstanceType, "TransformResources.InstanceType", "CreateTransformJob", instanceTypes.transform)
		case *RegisterModelArguments:
			for i, v := range a.InferenceSpecification.SupportedTransformInstanceTypes {
				check(v, fmt.Sprintf("InferenceSpecification.SupportedTransformInstanceTypes[%d]", i), "a model package's batch transform (TransformInstanceType)", instanceTypes.transform)
			}
			for i, v := range a.InferenceSpecification.SupportedRealtimeInferenceInstanceTypes {
				check(v, fmt.Sprintf("InferenceSpecification.SupportedRealtimeInferenceInstanceTypes[%d]", i), "a model package's endpoint (ProductionVariantInstanceType)", instanceTypes.realtime)
			}
		}
	}
	return out
}

// suggestInstance returns a few allowed types of the same family as it,
// else of the m5 family.
func suggestInstance(it string, allowed map[string]bool) string {
	family := "ml.m5."
	if parts := strings.Split(it, "."); len(parts) == 3 {
		family = parts[0] + "." + parts[1] + "."
	}
	var same []string
	for _, fam := range []string{family, "ml.m5."} {
		for t := range allowed {
			if strings.HasPrefix(t, fam) {
				same = append(same, t)
			}
		}
		if len(same) > 0 {
			break
		}
	}
	sort.Strings(same)
	if len(same) > 4 {
		same = same[:4]
	}
	return strings.Join(same, ", ")
}

// ecrImageRE parses an ECR image URI: account, region, repository, and a
// tag or digest.
var ecrImageRE = lazyre.New(`^(\d{12})\.dkr\.ecr(?:-fips)?\.([a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-\d)\.amazonaws\.com(?:\.cn)?/([a-z0-9]+(?:[._/-][a-z0-9]+)*)(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[a-f0-9]{64})?$`)

// ImageRegion parses an ECR image URI and returns its region; ok is false
// when uri is not one.
func ImageRegion(uri string) (region string, ok bool) {
	m := ecrImageRE().FindStringSubmatch(uri)
	if m == nil {
		return "", false
	}
	return m[2], true
}

// imageBlockers parses every image URI of the definition and matches its
// region with the compile's (the region every image was resolved in).
func imageBlockers(in ReadinessInput) []Blocker {
	if in.Result == nil || in.Result.Definition == nil {
		return nil
	}
	def := in.Result.Definition
	params, nodeOf, cfgs := parameterDefaults(def), stepNodes(in.Result), in.nodeConfigs()
	want := in.Result.Region
	var out []Blocker
	for _, s := range def.AllSteps() {
		node := nodeOf[s.Name]
		c := cfgs[node]
		check := func(v any, at string) {
			uri, ok := literalValue(v, params)
			if !ok {
				return
			}
			b := Blocker{Kind: BlockerImage, Node: node, Tool: "config.field_info"}
			region, ok := ImageRegion(uri)
			switch {
			case !ok:
				b.Problem = fmt.Sprintf("%q is not an ECR image URI (<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag or @sha256:digest]); SageMaker jobs pull images from ECR only", uri)
				b.Fix = "set the image URI of an ECR repository in the pipeline's region, or clear it so the framework image is looked up"
			case want != "" && region != want:
				b.Problem = fmt.Sprintf("image %s is in %s but the pipeline runs in %s; SageMaker does not pull images across regions", uri, region, want)
				b.Fix = fmt.Sprintf("use the image's copy in %s (ECR replication, or the framework's %s registry), or clear it so the framework image is looked up", want, want)
			default:
				return
			}
			// the config field holding the value, looked for only for a blocker
			b.Field = fieldHolding(c, uri, "")
			b.Path = "Steps[" + string(s.Name) + "].Arguments." + at
			if b.Field != "" {
				b.Path = string(c.Key) + "." + b.Field
			}
			out = append(out, b)
		}
		switch a := s.Arguments.(type) {
		case *ProcessingArguments:
			check(a.AppSpecification.ImageUri, "AppSpecification.ImageUri")
		case *TrainingArguments:
			check(a.AlgorithmSpecification.TrainingImage, "AlgorithmSpecification.TrainingImage")
		case *TuningArguments:
			check(a.TrainingJobDefinition.AlgorithmSpecification.TrainingImage, "TrainingJobDefinition.AlgorithmSpecification.TrainingImage")
		case *ModelArguments:
			check(a.PrimaryContainer.Image, "PrimaryContainer.Image")
		case *RegisterModelArguments:
			for i, pc := range a.InferenceSpecification.Containers {
				check(pc.Image, fmt.Sprintf("InferenceSpecification.Containers[%d].Image", i))
			}
		}
	}
	return out
}

// featureLists are the config fields that list a trainer's feature
// columns; a trainer declaring them needs at least one column in one.
var featureLists = []string{"tab_field_list", "cat_field_list", "full_field_list", "text_field_list"}

// featureBlockers reports a training or tuning step whose feature lists
// are all empty: XGBoost's script then exits, PyTorch's trains on nothing.
func featureBlockers(in ReadinessInput) []Blocker {
	var out []Blocker
	for _, nc := range in.checkedConfigs() {
		st := in.Steps[nc.cfg.Key]
		if st == nil || (st.Verb != catalog.VerbTraining && st.Verb != catalog.VerbTuning) {
			continue
		}
		var declared []string
		empty := true
		for _, f := range featureLists {
			if !nc.cfg.Class.HasField(f) {
				continue
			}
			declared = append(declared, f)
			if n, isList := listLen(nc.cfg.Values[f]); !isList || n > 0 {
				empty = false
			}
		}
		if len(declared) == 0 || !empty {
			continue
		}
		out = append(out, Blocker{Kind: BlockerNoFeatures, Node: nc.node, Field: declared[0], Path: string(nc.cfg.Key) + "." + declared[0], Tool: "config.merge_save",
			Problem: fmt.Sprintf("%s has no feature columns: %s are all empty, so the training script has nothing to train on", nc.node, strings.Join(declared, ", ")),
			Fix:     fmt.Sprintf("list the numeric columns in tab_field_list and the categorical ones in cat_field_list of %s", nc.cfg.Key)})
	}
	return out
}

// listLen returns the length of a list value; a nil value is an empty
// list, a non-list (a parameter reference) is not a list.
func listLen(v any) (int, bool) {
	switch t := v.(type) {
	case nil:
		return 0, true
	case []any:
		return len(t), true
	case []string:
		return len(t), true
	}
	return 0, false
}

// labelBlockers reports an edge into a step that reads its label column
// (catalog.Step.ReadsLabel) from a step that writes the label only when its
// own label_name is set (WritesLabelOnlyWhenSet), when that label_name is
// blank or names another column.
func labelBlockers(in ReadinessInput) []Blocker {
	if in.DAG == nil {
		return nil
	}
	cfgs := in.nodeConfigs()
	stepOf := func(n catalog.NodeName) *catalog.Step {
		if c := cfgs[n]; c != nil {
			return in.Steps[c.Key]
		}
		return nil
	}
	var out []Blocker
	for _, e := range in.DAG.Edges() {
		from, to := stepOf(e.From), stepOf(e.To)
		if from == nil || to == nil || !to.ReadsLabel() || !from.WritesLabelOnlyWhenSet() {
			continue
		}
		want, _ := cfgs[e.To].Values["label_name"].(string)
		have, _ := cfgs[e.From].Values["label_name"].(string)
		if want == "" || strings.TrimSpace(have) == want {
			continue
		}
		b := Blocker{Kind: BlockerLabelDropped, Node: e.From, Field: "label_name", Path: string(cfgs[e.From].Key) + ".label_name", Tool: "config.merge_save",
			Fix: fmt.Sprintf("set label_name of %s to %q, so its output keeps the label column %s reads", cfgs[e.From].Key, want, e.To)}
		if strings.TrimSpace(have) == "" {
			b.Problem = fmt.Sprintf("%s reads the label column %q from %s, which writes a label only when its label_name is set, and it is blank: %s would fail", e.To, want, e.From, e.To)
		} else {
			b.Problem = fmt.Sprintf("%s reads the label column %q from %s, which passes through the column %q instead", e.To, want, e.From, have)
		}
		out = append(out, b)
	}
	return out
}

// Example values: the AWS documentation's example account ids and
// buckets, and the ones this project's examples and docs show.
var (
	exampleAccounts = map[string]bool{"123456789012": true, "111122223333": true, "444455556666": true, "777788889999": true}
	exampleBuckets  = map[string]bool{"example-bucket": true, "examplebucket": true, "my-bucket": true, "mybucket": true,
		"bucket-name": true, "your-bucket": true, "amzn-s3-demo-bucket": true, "doc-example-bucket": true}
	exampleBucketPrefixes = []string{"amzn-s3-demo-", "doc-example-"}
	accountInTextRE       = lazyre.New(`(?:^|[:/.])(\d{12})(?:$|[:/.])`)
)

// exampleValue reports why a value is an example value ("" when it is not).
func exampleValue(field, s string) string {
	if hasDigitRun(s, 12) { // what an account id needs, before the expression looks
		for _, m := range accountInTextRE().FindAllStringSubmatch(s, -1) {
			if m[1] == "000000000000" {
				return "account 000000000000 is no AWS account: a placeholder"
			}
			if exampleAccounts[m[1]] {
				return fmt.Sprintf("account %s is an example account of the AWS documentation and of this project's examples", m[1])
			}
		}
	}
	bucket := ""
	if rest, ok := strings.CutPrefix(s, "s3://"); ok && rest != "" && rest[0] != '/' { // s3BucketRE
		bucket, _, _ = strings.Cut(rest, "/")
	} else if field == "bucket" {
		bucket = s
	}
	if b := strings.ToLower(bucket); b != "" {
		if exampleBuckets[b] {
			return fmt.Sprintf("bucket %s is an example bucket of the AWS documentation or of this project's examples", bucket)
		}
		for _, p := range exampleBucketPrefixes {
			if strings.HasPrefix(b, p) {
				return fmt.Sprintf("bucket %s is an example bucket of the AWS documentation", bucket)
			}
		}
	}
	return ""
}

// hasDigitRun reports whether s has n ASCII digits in a row.
func hasDigitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// CheckConfirm lists the example values of the configs a pipeline uses
// (the AWS documentation's example accounts and buckets, and the values
// this project's examples show): each is one confirm item, a value found
// at the same path in more than one config once, under shared.<path>.
// Confirm items block a deploy, not a local run: a local run never
// reaches the account or the bucket.
func CheckConfirm(in ReadinessInput) []Blocker {
	type hit struct {
		node catalog.NodeName
		key  catalog.ConfigKey
		why  string
		val  string
	}
	byPath := map[string][]hit{}
	var paths []string
	for _, nc := range in.checkedConfigs() {
		// (any order: the items are grouped by path, and the paths sorted)
		for name, v := range nc.cfg.Values {
			if f, ok := nc.cfg.Class.Field(name); ok && f.Tier == catalog.TierDerived {
				continue
			}
			walkStrings(v, nil, func(p jsonPath, text string) {
				why := exampleValue(name, text)
				if why == "" {
					return
				}
				at := p.render(name)
				if _, seen := byPath[at]; !seen {
					paths = append(paths, at)
				}
				byPath[at] = append(byPath[at], hit{nc.node, nc.cfg.Key, why, text})
			})
		}
	}
	sort.Strings(paths)
	var out []Blocker
	item := func(node catalog.NodeName, path, field string, h hit) Blocker {
		return Blocker{Kind: BlockerConfirm, Node: node, Field: field, Path: path, Tool: "config.merge_save",
			Problem: fmt.Sprintf("%q: %s", h.val, h.why),
			Fix:     "replace it with your own value; if it really is yours, deploy with confirmed: true"}
	}
	for _, p := range paths {
		hits := byPath[p]
		field, _, _ := strings.Cut(p, ".")
		field, _, _ = strings.Cut(field, "[")
		same := len(hits) > 1
		for _, h := range hits[1:] {
			same = same && h.val == hits[0].val
		}
		if same {
			out = append(out, item("", "shared."+p, field, hits[0]))
			continue
		}
		for _, h := range hits {
			out = append(out, item(h.node, string(h.key)+"."+p, field, h))
		}
	}
	return out
}
