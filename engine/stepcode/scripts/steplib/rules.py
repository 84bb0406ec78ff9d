"""Label rules: conditions over a row's fields, evaluated on whole DataFrames at once.

A condition is a leaf {"field": f, "operator": op, "value": v} or a combination
{"all_of": [...]}, {"any_of": [...]}, {"none_of": [...]}. A rule is {"rule_id", "priority"
(lower first), "enabled", "conditions", "output_label"} where output_label is one value, or, for
several label columns (multi-task), an object keyed by column. LabelRulesetGeneration checks and
orders a ruleset with validate; LabelRulesetExecution applies it with apply.
"""
import re

import numpy as np
import pandas as pd

NUMERIC = (">", ">=", "<", "<=", "between")
OPERATORS = ("equals", "not_equals", ">", ">=", "<", "<=", "between", "in", "not_in", "is_null", "is_not_null",
             "contains", "not_contains", "starts_with", "ends_with", "regex_match")
NO_VALUE = ("is_null", "is_not_null")
COMBINATORS = ("all_of", "any_of", "none_of")


def fields_of(cond):
    """The fields a condition reads, in first-use order."""
    out = []
    if isinstance(cond, dict):
        if "field" in cond and cond["field"] not in out:
            out.append(cond["field"])
        for k in COMBINATORS:
            for c in cond.get(k, []) or []:
                out += [f for f in fields_of(c) if f not in out]
    return out


def check_condition(cond, where, errors):
    """Appends to errors what is wrong with a condition (unknown operator, missing value, bad
    regex, empty combination, ...)."""
    if not isinstance(cond, dict) or not cond:
        errors.append("%s: a condition must be an object with field/operator/value or all_of/any_of/none_of" % where)
        return
    combos = [k for k in COMBINATORS if k in cond]
    if combos:
        if len(combos) > 1 or "field" in cond:
            errors.append("%s: one of all_of, any_of or none_of per object, without field" % where)
        parts = cond[combos[0]]
        if not isinstance(parts, list) or not parts:
            errors.append("%s.%s: a non-empty list of conditions" % (where, combos[0]))
            return
        for i, c in enumerate(parts):
            check_condition(c, "%s.%s[%d]" % (where, combos[0], i), errors)
        return
    field, op = cond.get("field"), cond.get("operator")
    if not isinstance(field, str) or not field:
        errors.append("%s: field must be a column name" % where)
    if op not in OPERATORS:
        errors.append("%s: operator %r is not one of %s" % (where, op, ", ".join(OPERATORS)))
        return
    if op in NO_VALUE:
        return
    if "value" not in cond:
        errors.append("%s: operator %s needs a value" % (where, op))
        return
    v = cond["value"]
    if op in ("in", "not_in") and not isinstance(v, list):
        errors.append("%s: operator %s needs a list value" % (where, op))
    elif op == "between" and not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v) and v[0] <= v[1]):
        errors.append("%s: operator between needs [low, high] numbers with low <= high" % where)
    elif op in (">", ">=", "<", "<=") and (isinstance(v, bool) or not isinstance(v, (int, float))):
        errors.append("%s: operator %s needs a number, got %r" % (where, op, v))
    elif op == "regex_match":
        try:
            re.compile(str(v))
        except re.error as e:
            errors.append("%s: regex %r: %s" % (where, v, e))


def contradictions(cond):
    """Human-readable reasons why an all_of can never hold: a field required equal to two
    values, or bounded above below its lower bound."""
    out = []
    if not isinstance(cond, dict) or "all_of" not in cond:
        return out
    leaves = [c for c in cond["all_of"] if isinstance(c, dict) and "field" in c]
    equals, lows, highs = {}, {}, {}
    for c in leaves:
        f, op, v = c.get("field"), c.get("operator"), c.get("value")
        if op == "equals":
            if f in equals and equals[f] != v:
                out.append("%s cannot equal both %r and %r" % (f, equals[f], v))
            equals[f] = v
        elif op in (">", ">=") and isinstance(v, (int, float)):
            lows[f] = max(lows.get(f, v), v)
        elif op in ("<", "<=") and isinstance(v, (int, float)):
            highs[f] = min(highs.get(f, v), v)
    for f in lows:
        if f in highs and lows[f] >= highs[f]:
            out.append("%s cannot be above %s and below %s" % (f, lows[f], highs[f]))
    return out


def canonical(cond):
    """A condition as comparable text (order of a combination's parts does not matter)."""
    if isinstance(cond, dict):
        for k in COMBINATORS:
            if k in cond:
                return "%s(%s)" % (k, ",".join(sorted(canonical(c) for c in cond[k])))
        return "%s %s %r" % (cond.get("field"), cond.get("operator"), cond.get("value"))
    return repr(cond)


def _text(col):
    return col.astype("string")


def mask(df, cond):
    """A boolean Series: the rows where a condition holds (a missing value satisfies only
    is_null and the negative operators)."""
    for k in COMBINATORS:
        if k in cond:
            parts = [mask(df, c) for c in cond[k]]
            m = parts[0].copy()
            for p in parts[1:]:
                m = (m & p) if k == "all_of" else (m | p)
            return ~m if k == "none_of" else m
    col, op, v = df[cond["field"]], cond["operator"], cond.get("value")
    if op == "is_null":
        return col.isna()
    if op == "is_not_null":
        return col.notna()
    if op in NUMERIC:
        x = pd.to_numeric(col, errors="coerce")
        if op == "between":
            return (x >= v[0]) & (x <= v[1])
        return {">": x > v, ">=": x >= v, "<": x < v, "<=": x <= v}[op].fillna(False)
    if op in ("equals", "not_equals", "in", "not_in"):
        values = v if isinstance(v, list) else [v]
        hit = col.isin(values)
        text = {str(x) for x in values}
        hit = hit | col.map(lambda a: a is not None and not (isinstance(a, float) and np.isnan(a)) and str(a) in text)
        return hit if op in ("equals", "in") else ~hit
    s = _text(col)
    if op == "contains":
        return s.str.contains(str(v), regex=False).fillna(False).astype(bool)
    if op == "not_contains":
        return (~s.str.contains(str(v), regex=False)).fillna(True).astype(bool)
    if op == "starts_with":
        return s.str.startswith(str(v)).fillna(False).astype(bool)
    if op == "ends_with":
        return s.str.endswith(str(v)).fillna(False).astype(bool)
    return s.str.contains(str(v), regex=True).fillna(False).astype(bool)  # regex_match


def label_columns(label_config):
    """The output label column(s) of a label config: a name or a list of names (multilabel)."""
    names = label_config.get("output_label_name", "label")
    return list(names) if isinstance(names, list) else [names]


def rule_labels(rule, columns):
    """A rule's output label per column: a single value applies to the only column; an object
    names its columns (those it leaves out are not set by the rule)."""
    out = rule.get("output_label")
    if isinstance(out, dict):
        return {c: out[c] for c in columns if c in out}
    return {columns[0]: out} if len(columns) == 1 else {c: out for c in columns}


def apply(df, ruleset, track=True):
    """(labelled df, per-rule match counts): each label column starts at its default_label and
    takes the output_label of the first enabled rule (by priority) that matches the row and sets
    that column. With track, a column <label>_rule names the rule that decided each row."""
    config = ruleset["label_config"]
    columns = label_columns(config)
    default = config.get("default_label")
    defaults = default if isinstance(default, dict) else {c: default for c in columns}
    decided = {c: pd.Series(False, index=df.index) for c in columns}
    out = df.copy()
    for c in columns:
        out[c] = defaults.get(c)
        if track:
            out[c + "_rule"] = ""
    counts = {}
    for rule in ruleset["rules"]:
        if not rule.get("enabled", True):
            continue
        m = mask(df, rule["conditions"])
        counts[rule["rule_id"]] = int(m.sum())
        for c, value in rule_labels(rule, columns).items():
            take = m & ~decided[c]
            if take.any():
                out.loc[take, c] = value
                if track:
                    out.loc[take, c + "_rule"] = rule["rule_id"]
                decided[c] = decided[c] | take
    return out, counts


def names_of(value):
    """A comma-separated list of names, blanks dropped."""
    return [x.strip() for x in str(value or "").split(",") if x.strip()]
