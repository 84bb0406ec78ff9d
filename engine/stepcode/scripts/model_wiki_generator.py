"""ModelWikiGenerator: write model documentation from computed metrics and plots.

Inputs
  /opt/ml/processing/input/metrics   metrics.json (ModelMetricsComputation's or an evaluation's;
                                     any *.json below the folder whose object has metrics) and
                                     optionally metrics_summary.txt
  /opt/ml/processing/input/plots     optional: *.jpg / *.png plots to embed
Output
  /opt/ml/processing/output/wiki     <model>_documentation.wiki (XWiki syntax),
                                     <model>_documentation.html, <model>_documentation.md, per
                                     OUTPUT_FORMATS, and the embedded plots under images/
Environment
  MODEL_NAME (required, the title), MODEL_USE_CASE, MODEL_VERSION, PIPELINE_NAME, AUTHOR,
  TEAM_ALIAS, CONTACT_EMAIL, REGION, OUTPUT_FORMATS (comma-separated: wiki, html, markdown),
  INCLUDE_TECHNICAL_DETAILS (adds every metric and the metrics files), MODEL_DESCRIPTION
"""
import datetime
import html
import json
import os
import re
import shutil
import sys

METRICS_DIR = "/opt/ml/processing/input/metrics"
PLOTS_DIR = "/opt/ml/processing/input/plots"
OUTPUT_DIR = "/opt/ml/processing/output/wiki"

HEADLINE = ("auc_roc", "auc_roc_macro", "average_precision", "average_precision_macro", "f1_score", "f1_score_macro",
            "accuracy", "precision", "recall", "count_recall", "dollar_recall", "log_loss", "rmse", "mae", "r2")


def log(msg):
    print("[model_wiki_generator] " + msg, flush=True)


def fail(msg):
    print("[model_wiki_generator] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def flag(value, default=False):
    v = str(value or "").strip().lower()
    return default if v == "" else v in ("true", "1", "yes")


def load_metrics(folder):
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".json"):
                path = os.path.join(root, name)
                try:
                    with open(path, encoding="utf-8") as f:
                        doc = json.load(f)
                except ValueError as e:
                    log("skipped %s: %s" % (path, e))
                    continue
                if isinstance(doc, dict):
                    found.append((os.path.relpath(path, folder), doc))
    if not found:
        fail("no metrics JSON in %s" % folder)
    found.sort(key=lambda x: (os.path.basename(x[0]) != "metrics.json", x[0]))
    return found


def flatten(doc, prefix=""):
    out = []
    for k in sorted(doc):
        v = doc[k]
        key = prefix + str(k)
        if isinstance(v, dict):
            out.extend(flatten(v, key + "."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append((key, v))
    return out


def fmt(v):
    return ("%.4f" % v) if isinstance(v, float) else str(v)


def headline(doc):
    rows = [(k, doc[k]) for k in HEADLINE if isinstance(doc.get(k), (int, float)) and not isinstance(doc.get(k), bool)]
    if not rows:  # an evaluation report per split ({"val": {...}, "test": {...}})
        for split in sorted(doc):
            if isinstance(doc[split], dict):
                rows += [("%s %s" % (split, k), doc[split][k]) for k in HEADLINE if isinstance(doc[split].get(k), (int, float))]
    return rows


def slug(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "model"


def main(input_paths, output_paths, environ_vars, job_args=None):
    name = environ_vars.get("MODEL_NAME") or ""
    if not name:
        fail("MODEL_NAME is required")
    formats = [f.strip().lower() for f in (environ_vars.get("OUTPUT_FORMATS") or "wiki,html,markdown").split(",") if f.strip()]
    bad = [f for f in formats if f not in ("wiki", "html", "markdown")]
    if bad:
        fail("OUTPUT_FORMATS %s: want wiki, html or markdown" % ", ".join(bad))
    metrics = load_metrics(input_paths["metrics_output"])
    main_doc = metrics[0][1]
    out_dir = output_paths["wiki_output"]
    os.makedirs(out_dir, exist_ok=True)
    images = []
    plots = input_paths.get("plots_output", PLOTS_DIR)
    for folder in (plots, input_paths["metrics_output"]):
        if not os.path.isdir(folder):
            continue
        for root, _, files in os.walk(folder):
            for f in sorted(files):
                if f.lower().endswith((".jpg", ".jpeg", ".png")) and f not in images:
                    os.makedirs(os.path.join(out_dir, "images"), exist_ok=True)
                    shutil.copy2(os.path.join(root, f), os.path.join(out_dir, "images", f))
                    images.append(f)
    info = [("Model", name), ("Version", environ_vars.get("MODEL_VERSION") or "1.0"),
            ("Use case", environ_vars.get("MODEL_USE_CASE") or "Machine Learning Model"),
            ("Pipeline", environ_vars.get("PIPELINE_NAME") or ""), ("Author", environ_vars.get("AUTHOR") or ""),
            ("Team", environ_vars.get("TEAM_ALIAS") or ""), ("Contact", environ_vars.get("CONTACT_EMAIL") or ""),
            ("Region", environ_vars.get("REGION") or ""), ("Task", str(main_doc.get("task", ""))),
            ("Samples evaluated", str(main_doc.get("num_samples", ""))),
            ("Generated", datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"))]
    info = [(k, v) for k, v in info if v]
    description = environ_vars.get("MODEL_DESCRIPTION") or ""
    perf = headline(main_doc)
    technical = flag(environ_vars.get("INCLUDE_TECHNICAL_DETAILS"), True)
    details = [(src, flatten(doc)) for src, doc in metrics] if technical else []

    sections = {"summary": info, "performance": perf, "details": details}
    base = slug(name) + "_documentation"
    writers = {"wiki": (".wiki", to_wiki), "html": (".html", to_html), "markdown": (".md", to_markdown)}
    for f in formats:
        ext, writer = writers[f]
        path = os.path.join(out_dir, base + ext)
        with open(path, "w", encoding="utf-8") as out:
            out.write(writer(name, description, sections, images))
        log("wrote %s" % path)


def to_markdown(name, description, s, images):
    lines = ["# %s" % name, ""]
    if description:
        lines += [description, ""]
    lines += ["## Summary", "", "| | |", "|---|---|"] + ["| %s | %s |" % (k, v) for k, v in s["summary"]] + [""]
    lines += ["## Performance", ""]
    if s["performance"]:
        lines += ["| Metric | Value |", "|---|---|"] + ["| %s | %s |" % (k, fmt(v)) for k, v in s["performance"]] + [""]
    else:
        lines += ["No headline metrics were found.", ""]
    for img in images:
        lines += ["![%s](images/%s)" % (img, img), ""]
    for src, rows in s["details"]:
        lines += ["## Technical details: %s" % src, "", "| Metric | Value |", "|---|---|"] + ["| %s | %s |" % (k, fmt(v)) for k, v in rows] + [""]
    return "\n".join(lines)


def to_wiki(name, description, s, images):
    lines = ["= %s =" % name, ""]
    if description:
        lines += [description, ""]
    lines += ["== Summary ==", ""] + ["|=%s|%s" % (k, v) for k, v in s["summary"]] + [""]
    lines += ["== Performance ==", ""]
    lines += ["|=Metric|=Value"] + ["|%s|%s" % (k, fmt(v)) for k, v in s["performance"]] + [""]
    for img in images:
        lines += ["[[image:images/%s]]" % img, ""]
    for src, rows in s["details"]:
        lines += ["== Technical details: %s ==" % src, "", "|=Metric|=Value"] + ["|%s|%s" % (k, fmt(v)) for k, v in rows] + [""]
    return "\n".join(lines)


def to_html(name, description, s, images):
    e = html.escape

    def table(rows, head=None):
        out = ["<table>"]
        if head:
            out.append("<tr>" + "".join("<th>%s</th>" % e(h) for h in head) + "</tr>")
        out += ["<tr><td>%s</td><td>%s</td></tr>" % (e(str(k)), e(fmt(v))) for k, v in rows]
        return "\n".join(out + ["</table>"])
    parts = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>%s</title></head><body>" % e(name), "<h1>%s</h1>" % e(name)]
    if description:
        parts.append("<p>%s</p>" % e(description))
    parts += ["<h2>Summary</h2>", table(s["summary"]), "<h2>Performance</h2>", table(s["performance"], ("Metric", "Value"))]
    parts += ['<p><img src="images/%s" alt="%s"></p>' % (e(img), e(img)) for img in images]
    for src, rows in s["details"]:
        parts += ["<h2>Technical details: %s</h2>" % e(src), table(rows, ("Metric", "Value"))]
    return "\n".join(parts + ["</body></html>", ""])


if __name__ == "__main__":
    env = {
        "MODEL_NAME": os.environ.get("MODEL_NAME", ""),
        "MODEL_USE_CASE": os.environ.get("MODEL_USE_CASE", ""),
        "MODEL_VERSION": os.environ.get("MODEL_VERSION", ""),
        "PIPELINE_NAME": os.environ.get("PIPELINE_NAME", ""),
        "AUTHOR": os.environ.get("AUTHOR", ""),
        "TEAM_ALIAS": os.environ.get("TEAM_ALIAS", ""),
        "CONTACT_EMAIL": os.environ.get("CONTACT_EMAIL", ""),
        "REGION": os.environ.get("REGION", ""),
        "OUTPUT_FORMATS": os.environ.get("OUTPUT_FORMATS", "wiki,html,markdown"),
        "INCLUDE_TECHNICAL_DETAILS": os.environ.get("INCLUDE_TECHNICAL_DETAILS", "true"),
        "MODEL_DESCRIPTION": os.environ.get("MODEL_DESCRIPTION", ""),
    }
    main({"metrics_output": METRICS_DIR, "plots_output": PLOTS_DIR}, {"wiki_output": OUTPUT_DIR}, env)
