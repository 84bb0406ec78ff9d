"""LabelRulesetGeneration: check a label ruleset and write it in the order it is applied.

Input
  /opt/ml/processing/input/config/label_ruleset   label_ruleset.json (config field label_ruleset):
      {"label_config": {"output_label_name": "label" or ["task_a", "task_b"],
                        "output_label_type": "binary" | "multiclass" | "multilabel",
                        "label_values": [0, 1] (or per column), "default_label": 0 (or per column)},
       "rules": [{"rule_id": "big_refund", "priority": 1, "enabled": true,
                  "conditions": {"all_of": [{"field": "refund_amount", "operator": ">", "value": 500}, ...]},
                  "output_label": 1 (or {"task_a": 1})}, ...]}
      (any .json file of the folder; a folder holding label_config.json and ruleset.json, the
      original layout, is read too)
Output
  /opt/ml/processing/output/validated_ruleset     validated_ruleset: ruleset.json, the rules enabled,
                                                  sorted by priority, duplicates dropped, with the
                                                  fields each reads
  /opt/ml/processing/output/validation_report     validation_report: validation_report.json (errors,
                                                  warnings, per-rule facts)
Environment
  ENABLE_FIELD_VALIDATION (rules name fields; with FIELD_NAMES, only those), FIELD_NAMES (the data's
  columns, comma-separated, optional), ENABLE_LABEL_VALIDATION (output labels among label_values),
  ENABLE_LOGIC_VALIDATION (contradictions, duplicates, rules shadowed by an earlier one),
  ENABLE_RULE_OPTIMIZATION (drop duplicates and disabled rules)

An invalid ruleset writes the report and fails the job, naming the first errors.
"""
import argparse
import glob
import json
import os
import sys

from steplib import rules as R

CONFIG_DIR = "/opt/ml/processing/input/config/label_ruleset"
RULESET_OUT = "/opt/ml/processing/output/validated_ruleset"
REPORT_OUT = "/opt/ml/processing/output/validation_report"


def log(msg):
    print("[label_ruleset_generation] " + msg, flush=True)


def truthy(v, default=True):
    v = str(v or "").strip().lower()
    return default if not v else v in ("1", "true", "yes", "on")


def load(folder):
    """The ruleset of the config input: one JSON object with label_config and rules, or the
    original layout's label_config.json + ruleset.json."""
    split = os.path.join(folder, "label_config.json"), os.path.join(folder, "ruleset.json")
    if all(os.path.exists(p) for p in split):
        with open(split[0], encoding="utf-8") as f, open(split[1], encoding="utf-8") as g:
            return {"label_config": json.load(f), "rules": json.load(g)}
    files = sorted(glob.glob(os.path.join(folder, "**", "*.json"), recursive=True))
    if not files:
        sys.exit("no ruleset under %s: set config field label_ruleset" % folder)
    with open(files[0], encoding="utf-8") as f:
        return json.load(f)


def validate(ruleset, env):
    """(errors, warnings, facts per rule, the ordered ruleset)."""
    errors, warnings = [], []
    if not isinstance(ruleset, dict):
        return ["the ruleset must be an object with label_config and rules"], [], [], None
    config, rules = ruleset.get("label_config"), ruleset.get("rules")
    if not isinstance(config, dict):
        errors.append("label_config: an object with output_label_name, label_values and default_label")
        config = {}
    if not isinstance(rules, list) or not rules:
        errors.append("rules: a non-empty list of rules")
        rules = []
    columns = R.label_columns(config)
    kind = config.get("output_label_type", "binary")
    if kind not in ("binary", "multiclass", "multilabel"):
        errors.append("label_config.output_label_type %r: binary, multiclass or multilabel" % kind)
    if kind == "multilabel" and len(columns) < 2:
        errors.append("label_config.output_label_name: multilabel needs a list of at least two columns")
    if len(set(columns)) != len(columns):
        errors.append("label_config.output_label_name has duplicates: %s" % columns)
    allowed = config.get("label_values")
    known_fields = set(R.names_of(env.get("FIELD_NAMES", "")))
    seen_ids, seen_conditions, facts = set(), {}, []
    for i, rule in enumerate(rules):
        where = "rules[%d]" % i
        if not isinstance(rule, dict):
            errors.append("%s: a rule must be an object" % where)
            continue
        rid = rule.get("rule_id") or rule.get("name")
        if not rid:
            errors.append("%s: rule_id is required" % where)
            rid = "rule_%d" % i
        elif rid in seen_ids:
            errors.append("%s: rule_id %r is used twice" % (where, rid))
        seen_ids.add(rid)
        rule["rule_id"] = rid
        if not isinstance(rule.get("priority", 0), (int, float)) or isinstance(rule.get("priority"), bool):
            errors.append("%s: priority must be a number" % where)
        if "conditions" not in rule:
            errors.append("%s (%s): conditions are required" % (where, rid))
            continue
        R.check_condition(rule["conditions"], "%s (%s).conditions" % (where, rid), errors)
        fields = R.fields_of(rule["conditions"])
        if truthy(env.get("ENABLE_FIELD_VALIDATION")) and known_fields:
            unknown = [f for f in fields if f not in known_fields]
            if unknown:
                errors.append("%s (%s): fields %s are not columns of the data (%s)" % (where, rid, unknown, sorted(known_fields)))
        if "output_label" not in rule:
            errors.append("%s (%s): output_label is required" % (where, rid))
        elif truthy(env.get("ENABLE_LABEL_VALIDATION")):
            labels = R.rule_labels(rule, columns)
            if isinstance(rule["output_label"], dict):
                extra = [c for c in rule["output_label"] if c not in columns]
                if extra:
                    errors.append("%s (%s): output_label names columns %s that are not output_label_name %s" % (where, rid, extra, columns))
            for col, value in labels.items():
                values = allowed.get(col) if isinstance(allowed, dict) else allowed
                if values and value not in values:
                    errors.append("%s (%s): output_label %r for %s is not among label_values %s" % (where, rid, value, col, values))
        if truthy(env.get("ENABLE_LOGIC_VALIDATION")):
            for why in R.contradictions(rule["conditions"]):
                warnings.append("%s (%s) never matches: %s" % (where, rid, why))
            key = R.canonical(rule["conditions"])
            if key in seen_conditions and rule.get("enabled", True):
                warnings.append("%s (%s) has the conditions of %s, which comes first: it never decides a row" % (where, rid, seen_conditions[key]))
            seen_conditions.setdefault(key, rid)
        facts.append({"rule_id": rid, "priority": rule.get("priority", 0), "enabled": bool(rule.get("enabled", True)), "fields": fields})
    default = config.get("default_label")
    if truthy(env.get("ENABLE_LABEL_VALIDATION")) and allowed and not isinstance(allowed, dict) and default is not None and default not in allowed:
        errors.append("label_config.default_label %r is not among label_values %s" % (default, allowed))
    if errors:
        return errors, warnings, facts, None
    ordered = sorted((r for r in rules), key=lambda r: r.get("priority", 0))
    if truthy(env.get("ENABLE_RULE_OPTIMIZATION")):
        kept, keys = [], set()
        for r in ordered:
            key = (R.canonical(r["conditions"]), json.dumps(r["output_label"], sort_keys=True))
            if not r.get("enabled", True) or key in keys:
                continue
            keys.add(key)
            kept.append(r)
        if len(kept) < len(ordered):
            warnings.append("optimization dropped %d disabled or duplicate rule(s)" % (len(ordered) - len(kept)))
        ordered = kept
    for r in ordered:
        r["fields"] = R.fields_of(r["conditions"])
    out = {"label_config": dict(config, output_label_name=columns if kind == "multilabel" else columns[0]), "rules": ordered,
           "fields": sorted({f for r in ordered for f in r["fields"]})}
    return errors, warnings, facts, out


def main(input_paths, output_paths, environ_vars, job_args=None):
    ruleset = load(input_paths["label_ruleset"])
    errors, warnings, facts, out = validate(ruleset, environ_vars)
    report = {"valid": not errors, "errors": errors, "warnings": warnings, "rules": facts,
              "rule_count": len(out["rules"]) if out else 0}
    os.makedirs(output_paths["validation_report"], exist_ok=True)
    with open(os.path.join(output_paths["validation_report"], "validation_report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
    for w in warnings:
        log("warning: " + w)
    if errors:
        sys.exit("the label ruleset is not valid (%d error(s)): %s" % (len(errors), "; ".join(errors[:5])))
    os.makedirs(output_paths["validated_ruleset"], exist_ok=True)
    with open(os.path.join(output_paths["validated_ruleset"], "ruleset.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2)
    log("%d rule(s) over fields %s, labels %s" % (len(out["rules"]), out["fields"], out["label_config"]["output_label_name"]))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Check a label ruleset and order it for execution.")
    parser.add_argument("--job_type", default="training")
    args = parser.parse_args()
    environ = {
        "ENABLE_FIELD_VALIDATION": os.environ.get("ENABLE_FIELD_VALIDATION", "true"),
        "FIELD_NAMES": os.environ.get("FIELD_NAMES", ""),
        "ENABLE_LABEL_VALIDATION": os.environ.get("ENABLE_LABEL_VALIDATION", "true"),
        "ENABLE_LOGIC_VALIDATION": os.environ.get("ENABLE_LOGIC_VALIDATION", "true"),
        "ENABLE_RULE_OPTIMIZATION": os.environ.get("ENABLE_RULE_OPTIMIZATION", "true"),
    }
    main({"label_ruleset": CONFIG_DIR}, {"validated_ruleset": RULESET_OUT, "validation_report": REPORT_OUT}, environ, args)
