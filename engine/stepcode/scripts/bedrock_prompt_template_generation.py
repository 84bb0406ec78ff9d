"""BedrockPromptTemplateGeneration: assemble a prompt configuration into one prompt template
for the Bedrock steps: the system prompt, the task with its categories (definitions, conditions,
examples), the input placeholders the data fills, and the answer format (a JSON object whose
fields the processing step turns into columns), embedded in the prompt.

Input
  /opt/ml/processing/input/config/prompt_configs   prompt_configs.json (config field
      prompt_configs): {"system_prompt", "task_description", "input_placeholders": [columns],
      "categories": [{"name", "description", "conditions": [...], "examples": [...]}],
      "output_format": {"fields": {name: {"type", "enum", "description"}}, "required": [...]},
      "examples": [{"input": {...}, "output": {...}}], "instructions": [...]}
Output
  /opt/ml/processing/output/templates   prompt_templates: prompts.json {"system_prompt",
                                        "user_prompt_template" ({column} placeholders),
                                        "input_placeholders", "output_format", "categories",
                                        "version", "task_type"}
  /opt/ml/processing/output/metadata    template_metadata: template_metadata.json (the checks and
                                        their results, the template's size)
Environment
  TEMPLATE_TASK_TYPE (classification, extraction or generation), TEMPLATE_STYLE (structured or
  conversational), VALIDATION_LEVEL (basic, standard or strict: strict fails on warnings),
  INPUT_PLACEHOLDERS (columns when the config names none)
Arguments
  --include-examples (true/false), --template-version
"""
import argparse
import glob
import json
import os
import sys

from steplib import bedrock

CONFIG_DIR = "/opt/ml/processing/input/config/prompt_configs"
TEMPLATES_OUT = "/opt/ml/processing/output/templates"
METADATA_OUT = "/opt/ml/processing/output/metadata"

DEFAULT_SYSTEM = "You are a careful analyst. You read the record you are given and answer with one JSON object, nothing else."
DEFAULT_FORMAT = {"fields": {"category": {"type": "string", "description": "the chosen category"},
                             "confidence": {"type": "number", "description": "0 to 1"},
                             "reasoning": {"type": "string", "description": "one or two sentences"}},
                  "required": ["category", "confidence"]}


def log(msg):
    print("[bedrock_prompt_template_generation] " + msg, flush=True)


def load(folder):
    files = sorted(glob.glob(os.path.join(folder, "**", "*.json"), recursive=True))
    if not files:
        sys.exit("no prompt configuration under %s: set config field prompt_configs" % folder)
    cfg = {}
    for p in files:  # one prompt_configs.json, or the original's several files merged by name
        with open(p, encoding="utf-8") as f:
            v = json.load(f)
        if not isinstance(v, dict):
            sys.exit("%s: a prompt configuration is a JSON object" % p)
        cfg.update(v)
    return cfg


def check(cfg, env):
    """(errors, warnings) of a prompt configuration."""
    errors, warnings = [], []
    task = env["TEMPLATE_TASK_TYPE"]
    if task not in ("classification", "extraction", "generation"):
        errors.append("TEMPLATE_TASK_TYPE %r: classification, extraction or generation" % task)
    cats = cfg.get("categories") or []
    if task == "classification":
        if not isinstance(cats, list) or len(cats) < 2:
            errors.append("categories: a classification needs at least two categories ({name, description})")
        names = []
        for i, c in enumerate(cats if isinstance(cats, list) else []):
            if not isinstance(c, dict) or not c.get("name"):
                errors.append("categories[%d]: an object with a name" % i)
                continue
            if c["name"] in names:
                errors.append("categories[%d]: %r is named twice" % (i, c["name"]))
            names.append(c["name"])
            if not c.get("description"):
                warnings.append("category %s has no description: the model has only its name to go by" % c["name"])
    fmt = cfg.get("output_format") or DEFAULT_FORMAT
    fields = fmt.get("fields") if isinstance(fmt, dict) else None
    if not isinstance(fields, dict) or not fields:
        errors.append("output_format.fields: an object of the answer's fields ({name: {type, description}})")
    else:
        for r in fmt.get("required") or []:
            if r not in fields:
                errors.append("output_format.required names %r, which is not among its fields" % r)
        for name, spec in fields.items():
            if isinstance(spec, dict) and spec.get("type") not in (None, "string", "number", "integer", "boolean", "array", "object"):
                errors.append("output_format.fields.%s.type %r is not a JSON type" % (name, spec.get("type")))
    if not (cfg.get("input_placeholders") or bedrock_names(env.get("INPUT_PLACEHOLDERS"))):
        errors.append("input_placeholders: name the columns of the data the prompt shows the model")
    if not cfg.get("task_description"):
        warnings.append("no task_description: the prompt says only what the categories say")
    return errors, warnings


def bedrock_names(text):
    text = (text or "").strip()
    if text.startswith("["):
        try:
            return [str(x) for x in json.loads(text)]
        except ValueError:
            pass
    return [x.strip() for x in text.split(",") if x.strip()]


def assemble(cfg, env, include_examples):
    """The prompt template: system prompt and user prompt with {column} placeholders."""
    task = env["TEMPLATE_TASK_TYPE"]
    structured = env.get("TEMPLATE_STYLE", "structured") == "structured"
    cats = cfg.get("categories") or []
    fmt = cfg.get("output_format") or DEFAULT_FORMAT
    if task == "classification" and cats and "category" in fmt.get("fields", {}):
        fmt = json.loads(json.dumps(fmt))
        fmt["fields"]["category"]["enum"] = [c["name"] for c in cats]
    places = cfg.get("input_placeholders") or bedrock_names(env.get("INPUT_PLACEHOLDERS"))
    h = (lambda s: "## " + s) if structured else (lambda s: s + ":")
    parts = []
    if cfg.get("task_description"):
        parts += [h("Task"), cfg["task_description"].strip(), ""]
    if cats:
        parts.append(h("Categories"))
        for c in cats:
            parts.append("- %s: %s" % (c["name"], (c.get("description") or "").strip()))
            for cond in c.get("conditions") or []:
                parts.append("    - when %s" % cond)
            if include_examples:
                for ex in c.get("examples") or []:
                    parts.append("    - e.g. %s" % ex)
        parts.append("")
    for instr in cfg.get("instructions") or []:
        parts.append("- " + instr)
    if cfg.get("instructions"):
        parts.append("")
    if include_examples and cfg.get("examples"):
        parts.append(h("Examples"))
        for ex in cfg["examples"]:
            parts.append("Input: %s" % json.dumps(ex.get("input"), sort_keys=True))
            parts.append("Answer: %s" % json.dumps(ex.get("output"), sort_keys=True))
        parts.append("")
    parts.append(h("Record"))
    for p in places:
        parts.append("%s: {%s}" % (p, p))
    parts.append("")
    parts.append(h("Answer format"))
    lines = []
    for name, spec in fmt["fields"].items():
        spec = spec if isinstance(spec, dict) else {}
        extra = (" one of %s" % json.dumps(spec["enum"])) if spec.get("enum") else ""
        lines.append('  "%s": %s%s%s' % (name, spec.get("type", "string"), extra, (" - " + spec["description"]) if spec.get("description") else ""))
    parts.append("Answer with one JSON object and nothing else:\n{\n" + ",\n".join(lines) + "\n}")
    user = "\n".join(parts)
    unknown = [p for p in bedrock.placeholders(user) if p not in places]
    if unknown:  # braces in the configuration's own text would be read as columns
        sys.exit("the template's text holds {%s}, which are not input_placeholders: write them without braces" % "}, {".join(unknown))
    return {"system_prompt": (cfg.get("system_prompt") or DEFAULT_SYSTEM).strip(), "user_prompt_template": user,
            "input_placeholders": places, "output_format": fmt, "categories": [c["name"] for c in cats], "task_type": task}


def main(input_paths, output_paths, environ_vars, job_args):
    cfg = load(input_paths["prompt_configs"])
    errors, warnings = check(cfg, environ_vars)
    level = environ_vars.get("VALIDATION_LEVEL", "standard")
    if level == "strict" and warnings:
        errors += ["(strict) " + w for w in warnings]
    meta = {"valid": not errors, "errors": errors, "warnings": warnings, "validation_level": level, "version": job_args.template_version}
    os.makedirs(output_paths["template_metadata"], exist_ok=True)
    if errors:
        with open(os.path.join(output_paths["template_metadata"], "template_metadata.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2)
        sys.exit("the prompt configuration is not valid: %s" % "; ".join(errors[:5]))
    include = str(job_args.include_examples).strip().lower() in ("1", "true", "yes")
    tpl = assemble(cfg, environ_vars, include)
    tpl["version"] = job_args.template_version
    os.makedirs(output_paths["prompt_templates"], exist_ok=True)
    with open(os.path.join(output_paths["prompt_templates"], "prompts.json"), "w", encoding="utf-8") as f:
        json.dump(tpl, f, indent=2)
    meta.update({"characters": len(tpl["system_prompt"]) + len(tpl["user_prompt_template"]),
                 "estimated_tokens": (len(tpl["system_prompt"]) + len(tpl["user_prompt_template"])) // 4,
                 "input_placeholders": tpl["input_placeholders"], "categories": tpl["categories"]})
    with open(os.path.join(output_paths["template_metadata"], "template_metadata.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    for w in warnings:
        log("warning: " + w)
    log("template %s: %d categories, placeholders %s, about %d tokens" % (tpl["version"], len(tpl["categories"]), tpl["input_placeholders"], meta["estimated_tokens"]))
    return tpl


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Assemble a Bedrock prompt template.")
    parser.add_argument("--include-examples", default="false")
    parser.add_argument("--template-version", default="1.0")
    args = parser.parse_args()
    environ = {
        "TEMPLATE_TASK_TYPE": os.environ.get("TEMPLATE_TASK_TYPE", "classification"),
        "TEMPLATE_STYLE": os.environ.get("TEMPLATE_STYLE", "structured"),
        "VALIDATION_LEVEL": os.environ.get("VALIDATION_LEVEL", "standard"),
        "INPUT_PLACEHOLDERS": os.environ.get("INPUT_PLACEHOLDERS", ""),
    }
    main({"prompt_configs": CONFIG_DIR}, {"prompt_templates": TEMPLATES_OUT, "template_metadata": METADATA_OUT}, environ, args)
