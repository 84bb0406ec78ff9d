package markdown

import (
	"fmt"
	"strings"
)

// helpView: tools.help. Phases with counts, then per namespace its tool
// names (the index) or one line per tool (detail); gated tools are marked.
func helpView(w *writer, d map[string]any) error {
	w.heading(1, "Cursus tools")
	if o := str(d, "overview"); o != "" {
		w.para("%s", o)
	}
	shown, _ := integer(d, "shown")
	total, _ := integer(d, "total_tools")
	var filters []string
	if s := str(d, "stage"); s != "" {
		filters = append(filters, "stage "+code(s))
	}
	if s := str(d, "filtered_namespace"); s != "" {
		filters = append(filters, "namespace "+code(s))
	}
	if s := str(d, "filtered_phase"); s != "" {
		filters = append(filters, "phase "+code(s))
	}
	line := fmt.Sprintf("%d of %d tools shown", shown, total)
	if len(filters) > 0 {
		line += " (" + strings.Join(filters, ", ") + ")"
	}
	w.para("%s.", line)
	if ph := obj(d, "phases"); len(ph) > 0 {
		w.heading(2, "Phases")
		for _, p := range orderedPhases(ph) {
			pm, _ := ph[p].(map[string]any)
			n, _ := integer(pm, "count")
			w.line("- **%s** (%d): %s", p, n, str(pm, "description"))
		}
	}
	for _, nsv := range list(d, "namespaces") {
		ns, _ := nsv.(map[string]any)
		title := str(ns, "namespace")
		if desc := str(ns, "description"); desc != "" {
			title += ": " + desc
		}
		w.heading(2, "%s", title)
		if names := list(ns, "names"); len(names) > 0 {
			cs := make([]string, len(names))
			for i, n := range names {
				s, _ := n.(string)
				cs[i] = code(s)
			}
			w.line("%s", strings.Join(cs, ", "))
		}
		for _, tv := range list(ns, "tools") {
			t, _ := tv.(map[string]any)
			flags := toolFlags(t)
			s := fmt.Sprintf("- `%s`%s:", str(t, "name"), flags)
			if d := str(t, "description"); d != "" {
				s += " " + d
			}
			if when := strings.TrimSuffix(str(t, "when"), "."); when != "" {
				s += " When: " + when + "."
			}
			if by := str(t, "deprecated_by"); by != "" {
				s += " Deprecated: use `" + by + "`."
			}
			w.line("%s", s)
		}
	}
	return nil
}

// orderedPhases puts the three known phases first, in their order.
func orderedPhases(ph map[string]any) []string {
	known := []string{"planner", "validator", "programmer"}
	var out []string
	seen := map[string]bool{}
	for _, p := range known {
		if _, ok := ph[p]; ok {
			out = append(out, p)
			seen[p] = true
		}
	}
	for _, p := range keys(ph) {
		if !seen[p] {
			out = append(out, p)
		}
	}
	return out
}

func toolFlags(t map[string]any) string {
	var f []string
	for _, k := range []string{"destructive", "writes", "exec_code"} {
		if b, _ := boolean(t, k); b {
			f = append(f, strings.ReplaceAll(k, "_", " "))
		}
	}
	if len(f) == 0 {
		return ""
	}
	return " _(gated: " + strings.Join(f, ", ") + ")_"
}

// planView: dag.resolve_plan. One row per step in execution order with its
// parents and where each input comes from.
func planView(w *writer, d map[string]any) error {
	order := strs(d, "execution_order")
	if order == nil {
		return fmt.Errorf("no execution_order in the data")
	}
	w.heading(1, "Execution plan (%d steps)", len(order))
	deps := obj(d, "dependencies")
	flow := obj(d, "data_flow_map")
	rows := make([][]string, 0, len(order))
	unfed := 0
	for i, n := range order {
		parents := strs(deps, n)
		var ins []string
		if f, ok := flow[n].(map[string]any); ok {
			for _, k := range keys(f) {
				ins = append(ins, k+" <- "+scalar(f[k]))
			}
		}
		if len(parents) > 0 && len(ins) == 0 && flow != nil {
			unfed++
		}
		rows = append(rows, []string{fmt.Sprint(i + 1), code(n), joinOr(parents, ", ", "-"), joinOr(ins, "; ", "-")})
	}
	w.table([]string{"#", "Step", "Runs after", "Inputs (input <- parent:output)"}, rows)
	if unfed > 0 {
		w.para("%d step(s) have parents but no resolved input: check them with validate.deps_resolve.", unfed)
	}
	return nil
}

// reportView: compile.with_report. The steps in pipeline order with config,
// builder and confidence, then each step's inputs and any unbound input.
func reportView(w *writer, d map[string]any) error {
	name := str(d, "pipeline_name")
	w.heading(1, "Compiled pipeline %s", code(name))
	n, _ := integer(d, "step_count")
	w.para("%d steps, average resolution confidence %s.", n, fixed(d, "avg_confidence"))
	nodes := list(d, "nodes")
	if len(nodes) > 0 {
		rows := make([][]string, 0, len(nodes))
		for i, nv := range nodes {
			nm, _ := nv.(map[string]any)
			rows = append(rows, []string{fmt.Sprint(i + 1), code(str(nm, "node")), str(nm, "sagemaker_step_name"),
				str(nm, "sagemaker_step_type"), str(nm, "config_class"), str(nm, "builder"), fixed(nm, "confidence")})
		}
		w.table([]string{"#", "Node", "SageMaker step", "Type", "Config class", "Builder", "Confidence"}, rows)
		w.heading(2, "Inputs")
		for _, nv := range nodes {
			nm, _ := nv.(map[string]any)
			var parts []string
			for _, bv := range list(nm, "inputs") {
				b, _ := bv.(map[string]any)
				switch str(b, "source") {
				case "dependency":
					parts = append(parts, fmt.Sprintf("%s <- %s.%s (%s)", str(b, "input"), str(b, "provider"), str(b, "output"), fixed(b, "score")))
				default:
					parts = append(parts, fmt.Sprintf("%s <- %s %s", str(b, "input"), str(b, "source"), truncate(str(b, "reference"), 80)))
				}
			}
			for _, uv := range list(nm, "unbound") {
				u, _ := uv.(map[string]any)
				req := "optional"
				if r, _ := boolean(u, "required"); r {
					req = "REQUIRED"
				}
				parts = append(parts, fmt.Sprintf("%s unbound (%s: %s)", str(u, "input"), req, str(u, "reason")))
			}
			w.line("- `%s`: %s", str(nm, "node"), joinOr(parts, "; ", "no inputs"))
		}
	} else if det := obj(d, "resolution_details"); len(det) > 0 {
		rows := [][]string{}
		for _, s := range strs(d, "steps") {
			nm, _ := det[s].(map[string]any)
			rows = append(rows, []string{code(s), str(nm, "sagemaker_step_name"), str(nm, "config_type"), str(nm, "builder_type"), fixed(nm, "confidence")})
		}
		w.table([]string{"Node", "SageMaker step", "Config class", "Builder", "Confidence"}, rows)
	}
	writeWarnings(w, strs(d, "warnings"), 10)
	return nil
}

func writeWarnings(w *writer, warns []string, limit int) {
	if len(warns) == 0 {
		return
	}
	w.heading(2, "Warnings (%d)", len(warns))
	for i, s := range warns {
		if i == limit {
			w.line("- %s", more(len(warns), limit, "warnings"))
			break
		}
		w.line("- %s", s)
	}
}

// previewView: compile.preview. How each node resolves, then ambiguous and
// unresolved nodes and the recommendations.
func previewView(w *writer, d map[string]any) error {
	cfg := obj(d, "node_config_map")
	nodes := keys(cfg)
	w.heading(1, "Resolution preview (%d nodes)", len(nodes))
	keysM, builders, stepNames := obj(d, "node_config_keys"), obj(d, "config_builder_map"), obj(d, "node_step_names")
	conf, methods := obj(d, "resolution_confidence"), obj(d, "resolution_methods")
	rows := make([][]string, 0, len(nodes))
	low := 0
	for _, n := range nodes {
		class := scalar(cfg[n])
		c := fixed(conf, n)
		if f, ok := num(conf, n); ok && f < 0.7 {
			low++
			c += " (low)"
		}
		rows = append(rows, []string{code(n), class, str(keysM, n), str(builders, class), str(stepNames, n), c, str(methods, n)})
	}
	w.table([]string{"Node", "Config class", "Config key", "Builder", "SageMaker step", "Confidence", "Method"}, rows)
	if low > 0 {
		w.para("%d node(s) resolve with confidence below 0.70.", low)
	}
	if amb := list(d, "ambiguous_resolutions"); len(amb) > 0 {
		w.heading(2, "Ambiguous (%d)", len(amb))
		for _, av := range amb {
			a, _ := av.(map[string]any)
			var cs []string
			for _, cv := range list(a, "candidates") {
				c, _ := cv.(map[string]any)
				cs = append(cs, fmt.Sprintf("%s (%s, %s)", str(c, "config_key"), str(c, "config_class"), fixed(c, "confidence")))
			}
			w.line("- `%s`: %s", str(a, "node"), joinOr(cs, "; ", "no candidates"))
		}
	}
	if un := obj(d, "unresolved"); len(un) > 0 {
		w.heading(2, "Unresolved (%d)", len(un))
		for _, n := range keys(un) {
			w.line("- `%s`: %s", n, scalar(un[n]))
		}
	}
	if rec := strs(d, "recommendations"); len(rec) > 0 {
		w.heading(2, "Recommendations")
		for _, r := range rec {
			w.line("- %s", r)
		}
	}
	return nil
}

// alignmentView: validate.alignment. Totals, the breakdown by step type and
// level, the critical issues and, for a subset, each step's levels.
func alignmentView(w *writer, d map[string]any) error {
	total, _ := integer(d, "total_steps")
	passed, _ := integer(d, "passed_steps")
	failed, _ := integer(d, "failed_steps")
	rate, hasRate := num(d, "pass_rate")
	title := fmt.Sprintf("Alignment: %d of %d steps pass", passed, total)
	if hasRate {
		title += " (" + percent(rate) + ")"
	}
	w.heading(1, "%s", title)
	var facts []string
	if s := str(d, "scope"); s != "" {
		facts = append(facts, "scope "+s)
	}
	facts = append(facts, fmt.Sprintf("%d failed", failed))
	if ex, ok := integer(d, "excluded_steps"); ok && ex > 0 {
		facts = append(facts, fmt.Sprintf("%d excluded", ex))
	}
	if sc, ok := integer(d, "scripts_checked"); ok {
		facts = append(facts, fmt.Sprintf("%d scripts checked", sc))
	}
	w.para("%s.", strings.Join(facts, ", "))
	if bt := obj(d, "step_type_breakdown"); len(bt) > 0 {
		w.heading(2, "By SageMaker step type")
		rows := [][]string{}
		for _, k := range keys(bt) {
			b, _ := bt[k].(map[string]any)
			rows = append(rows, []string{k, str(b, "total"), str(b, "passed"), str(b, "failed")})
		}
		w.table([]string{"Type", "Steps", "Passed", "Failed"}, rows)
	}
	if ls := obj(d, "level_summary"); len(ls) > 0 {
		w.heading(2, "By level")
		rows := [][]string{}
		for _, k := range keys(ls) {
			l, _ := ls[k].(map[string]any)
			pr := "-"
			if f, ok := num(l, "pass_rate"); ok {
				pr = percent(f)
			}
			rows = append(rows, []string{str(l, "level"), str(l, "validation_type"), str(l, "checked"), str(l, "passed"), str(l, "failed"), pr})
		}
		w.table([]string{"Level", "Check", "Checked", "Passed", "Failed", "Pass rate"}, rows)
	}
	if ci := list(d, "critical_issues"); len(ci) > 0 {
		w.heading(2, "Critical issues (%d)", len(ci))
		for i, iv := range ci {
			if i == 20 {
				w.line("- %s", more(len(ci), 20, "issues"))
				break
			}
			is, _ := iv.(map[string]any)
			msg := str(is, "message")
			if msg == "" {
				msg = str(is, "description")
			}
			lvl := str(is, "level")
			if lvl != "" {
				lvl = " level " + lvl
			}
			w.line("- `%s`%s: %s", str(is, "step_name"), lvl, msg)
		}
	}
	if det := list(d, "detailed_results"); len(det) > 0 {
		w.heading(2, "Steps")
		rows := [][]string{}
		for i, sv := range det {
			if i == 40 {
				rows = append(rows, []string{more(len(det), 40, "steps")})
				break
			}
			s, _ := sv.(map[string]any)
			var fails []string
			levels := obj(s, "validation_results")
			for _, k := range keys(levels) {
				l, _ := levels[k].(map[string]any)
				if p, ok := boolean(l, "passed"); ok && !p {
					fails = append(fails, fmt.Sprintf("L%s %s (%d issues)", str(l, "level"), str(l, "validation_type"), len(list(l, "issues"))))
				}
			}
			rows = append(rows, []string{code(str(s, "step_name")), str(s, "sagemaker_step_type"), str(s, "overall_status"), joinOr(fails, "; ", "-")})
		}
		w.table([]string{"Step", "Type", "Status", "Failing levels"}, rows)
	}
	return nil
}

// recommendView: pipeline_catalog.recommend. The ranked DAGs with their
// score, shape and reasons.
func recommendView(w *writer, d map[string]any) error {
	recs := list(d, "recommendations")
	if recs == nil {
		if r := obj(d, "ranking"); r != nil {
			d = r
			recs = list(d, "recommendations")
		}
	}
	total, ok := integer(d, "total_matches")
	if !ok {
		total = len(recs)
	}
	w.heading(1, "Recommended DAGs (%d of %d matches)", len(recs), total)
	var served []string
	for _, sv := range list(d, "served") {
		s, _ := sv.(map[string]any)
		item := str(s, "concept")
		if how := str(s, "how"); how != "" {
			item += " (" + how + ")"
		}
		served = append(served, item)
	}
	if len(served) > 0 {
		w.para("Served: %s.", strings.Join(served, ", "))
	}
	for _, uv := range list(d, "unserved") {
		u, _ := uv.(map[string]any)
		line := fmt.Sprintf("- Not served: %s (%q): %s", code(str(u, "concept")), str(u, "phrase"), str(u, "reason"))
		if c := str(u, "change"); c != "" {
			line += "; change: " + c
			if b, _ := boolean(u, "applied"); b {
				line += " (made in adapted_dag)"
			}
		}
		w.line("%s.", line)
	}
	if a := obj(d, "adapted_dag"); a != nil {
		w.para("Adapted DAG (from %s): nodes %s.", code(str(a, "from")), strings.Join(strs(a, "nodes"), ", "))
	}
	if nn := strs(d, "not_needs"); len(nn) > 0 {
		w.para("Not read as needs: %s.", strings.Join(nn, ", "))
	}
	if src := str(d, "data_source"); src != "" {
		w.para("Data lives in: %s.", src)
	}
	if len(recs) == 0 {
		w.para("No DAG matches; relax the filters or call pipeline_catalog.list.")
	}
	w.block()
	for i, rv := range recs {
		r, _ := rv.(map[string]any)
		var shape []string
		for _, k := range []string{"framework", "complexity"} {
			if s := str(r, k); s != "" {
				shape = append(shape, s)
			}
		}
		if n, ok := integer(r, "node_count"); ok {
			shape = append(shape, fmt.Sprintf("%d nodes", n))
		}
		w.line("%d. **%s**: score %s; %s", i+1, str(r, "dag_id"), fixed(r, "score"), strings.Join(shape, ", "))
		if s := str(r, "description"); s != "" {
			w.line("   %s", s)
		}
		if rs := strs(r, "reasons"); len(rs) > 0 {
			w.line("   Why: %s.", strings.TrimSuffix(strings.Join(rs, "; "), "."))
		}
		if s := str(r, "when_to_use"); s != "" {
			w.line("   When to use: %s", s)
		}
		if c := obj(r, "cost"); c != nil {
			var cs []string
			if h := str(c, "estimated_hours"); h != "" {
				cs = append(cs, "~"+h+" h")
			}
			for _, k := range []string{"instance_cost_tier", "cost_driver"} {
				if s := str(c, k); s != "" {
					cs = append(cs, s)
				}
			}
			if len(cs) > 0 {
				w.line("   Cost: %s", strings.Join(cs, ", "))
			}
		}
	}
	if ex := obj(d, "excluded"); len(ex) > 0 {
		var parts []string
		for _, k := range keys(ex) {
			parts = append(parts, fmt.Sprintf("%s %s", scalar(ex[k]), k))
		}
		w.para("Excluded: %s.", strings.Join(parts, ", "))
	}
	if s := str(d, "next_step"); s != "" {
		w.para("Next: %s", s)
	}
	return nil
}

// execdocView: execdoc.generate. Each step of the document with its type
// and how many config fields it carries, with a few of them.
func execdocView(w *writer, d map[string]any) error {
	doc := d
	if inner := obj(d, "execution_document"); inner != nil {
		doc = inner
	} else if inner := obj(d, "document"); inner != nil {
		doc = inner
	}
	steps := obj(doc, "PIPELINE_STEP_CONFIGS")
	if steps == nil {
		return fmt.Errorf("no PIPELINE_STEP_CONFIGS in the data")
	}
	names := keys(steps)
	filled := 0
	rows := make([][]string, 0, len(names))
	for _, n := range names {
		s, _ := steps[n].(map[string]any)
		cfg := obj(s, "STEP_CONFIG")
		if len(cfg) > 0 {
			filled++
		}
		ck := keys(cfg)
		shown := ck
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("+%d", len(ck)-5))
		}
		rows = append(rows, []string{code(n), scalar(s["STEP_TYPE"]), fmt.Sprint(len(cfg)), joinOr(shown, ", ", "-")})
	}
	w.heading(1, "Execution document (%d steps, %d with config)", len(names), filled)
	w.table([]string{"Step", "Step type", "Config fields", "Fields"}, rows)
	var other []string
	for _, k := range keys(doc) {
		if k != "PIPELINE_STEP_CONFIGS" {
			other = append(other, k)
		}
	}
	if len(other) > 0 {
		w.para("Other top-level keys: %s.", strings.Join(other, ", "))
	}
	return nil
}

// statusView: workflow.status. The next stage, each stage's state and what
// it misses, and the artifacts.
func statusView(w *writer, d map[string]any) error {
	id := str(d, "run_id")
	done, _ := boolean(d, "done")
	if done {
		w.heading(1, "Run %s: complete", code(id))
	} else {
		w.heading(1, "Run %s: next stage %s", code(id), code(str(d, "next_stage")))
	}
	var facts []string
	if s := str(d, "run_dir"); s != "" {
		facts = append(facts, "folder "+code(s))
	}
	if s := str(d, "active_stage"); s != "" {
		facts = append(facts, "active stage "+code(s))
	}
	if len(facts) > 0 {
		w.para("%s.", strings.Join(facts, ", "))
	}
	if u := strs(d, "unknown_steps"); len(u) > 0 {
		w.para("Step types the catalog does not know: %s.", strings.Join(u, ", "))
	}
	if sts := list(d, "stages"); len(sts) > 0 {
		rows := [][]string{}
		for _, sv := range sts {
			s, _ := sv.(map[string]any)
			c, _ := boolean(s, "complete")
			rows = append(rows, []string{str(s, "name"), yesNo(c), str(s, "last_completed"), joinOr(strs(s, "missing"), "; ", "-")})
		}
		w.heading(2, "Stages")
		w.table([]string{"Stage", "Complete", "Last completed", "Missing"}, rows)
	}
	if arts := list(d, "artifacts"); len(arts) > 0 {
		w.heading(2, "Artifacts")
		for _, av := range arts {
			a, _ := av.(map[string]any)
			if e, _ := boolean(a, "exists"); e {
				w.line("- %s: %s (%s bytes, modified %s)", str(a, "name"), code(str(a, "path")), str(a, "size"), str(a, "modified"))
			} else {
				w.line("- %s: missing", str(a, "name"))
			}
		}
	}
	if cs := list(d, "completed"); len(cs) > 0 {
		var parts []string
		for _, cv := range cs {
			c, _ := cv.(map[string]any)
			parts = append(parts, str(c, "stage")+" "+str(c, "at"))
		}
		w.para("Completion history: %s.", strings.Join(parts, "; "))
	}
	return nil
}
