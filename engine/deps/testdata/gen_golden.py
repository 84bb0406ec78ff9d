#!/usr/bin/env python3
"""Generates original_golden.json from cursus (Python) (TianpeiLuke/cursus).

Usage: gen_golden.py <path to a checkout of cursus's src/cursus>

It runs cursus's SemanticMatcher and difflib, reads cursus's step
interface files (spec section, job-type variants deep-merged) and computes
compatibility scores and the assembler's wiring (candidates over DAG edges,
then greedy assignment with uniqueness) with a line-by-line copy of
UnifiedDependencyResolver._calculate_compatibility. The second resolver pass is
not applied (see engine/deps/doc.go, "One pass"). The Go tests compare against this file.
"""
import difflib, glob, importlib.util, json, random, sys

src = sys.argv[1]
spec = importlib.util.spec_from_file_location("sm", src + "/core/deps/semantic_matcher.py")
sm = importlib.util.module_from_spec(spec); spec.loader.exec_module(sm)
M = sm.SemanticMatcher()
import yaml

files = {}
for f in glob.glob(src + "/steps/interfaces/*.step.yaml"):
    d = yaml.safe_load(open(f)); files[d["step_type"]] = d

def deep(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        r = dict(a)
        for k, v in b.items():
            r[k] = deep(a[k], v) if k in a else v
        return r
    return b

LEGACY = {"MIMSPackaging": "Package", "MIMSPayload": "Payload", "ModelRegistration": "Registration",
          "PytorchTraining": "PyTorchTraining", "PytorchModel": "PyTorchModel"}

class NS:
    def __init__(self, **kw): self.__dict__.update(kw)

def load(st, jt=None):
    d = files[st]; s = d.get("spec") or {}
    if jt and d.get("variants") and jt in d["variants"]:
        s = deep(s, d["variants"][jt].get("spec") or {})
    deps, outs = [], []
    for k, v in (s.get("dependencies") or {}).items():
        v = v or {}
        deps.append(NS(logical_name=k, dependency_type=v["type"], required=v.get("required", True),
                       compatible_sources=v.get("compatible_sources") or [],
                       semantic_keywords=v.get("semantic_keywords") or [], data_type=v.get("data_type", "S3Uri")))
    for k, v in (s.get("outputs") or {}).items():
        outs.append(NS(logical_name=k, output_type=v["type"], aliases=v.get("aliases") or [],
                       semantic_keywords=v.get("semantic_keywords") or [],
                       data_type=v.get("data_type", "S3Uri"), property_path=v.get("property_path")))
    overrides = (d.get("contract") or {}).get("input_source_overrides") or {}
    for dep in deps:
        dep.config_source = overrides.get(dep.logical_name, "")
    return NS(step_type=st, dependencies=deps, outputs=outs)

COMPAT = {"model_artifacts": ["model_artifacts"], "training_data": ["processing_output", "training_data"],
          "processing_output": ["processing_output", "training_data"],
          "hyperparameters": ["hyperparameters", "custom_property"],
          "payload_samples": ["payload_samples", "processing_output"], "custom_property": ["custom_property"]}
DCOMPAT = {"S3Uri": ["S3Uri", "String"], "String": ["String", "S3Uri"], "Integer": ["Integer", "Float"],
           "Float": ["Float", "Integer"], "Boolean": ["Boolean"]}

def in_sources(p, srcs):
    if p in srcs: return True
    eq = {p} | {l for l, c in LEGACY.items() if c == p} | {p + "Step"}
    strip = lambda n: n[:-4] if n.endswith("Step") else n
    return any(s in eq or strip(s) == strip(p) for s in srcs)

def compat(d, o, P):
    score = 0.0
    if d.dependency_type == o.output_type: score += 0.4
    elif o.output_type in COMPAT.get(d.dependency_type, []): score += 0.2
    else: return 0.0
    if d.data_type == o.data_type: score += 0.2
    elif o.data_type in DCOMPAT.get(d.data_type, [d.data_type]): score += 0.1
    score += M.calculate_similarity_with_aliases(d.logical_name, o) * 0.25
    if d.logical_name == o.logical_name: score += 0.05
    elif d.logical_name in o.aliases: score += 0.05
    if d.compatible_sources:
        score += 0.1 if in_sources(P.step_type, d.compatible_sources) else -0.1
    if d.semantic_keywords:
        ol = o.logical_name.lower()
        score += (sum(1 for k in d.semantic_keywords if k.lower() in ol) / len(d.semantic_keywords)) * 0.05
    return min(score, 1.0)

JOBS = ["training", "calibration", "validation", "testing"]
def node_step(n):
    for jt in JOBS:
        if n.endswith("_" + jt): return n[: -len(jt) - 1], jt
    return n, None

def wire(nodes, edges):
    specs = {n: load(*node_step(n)) for n in nodes}
    cand = {}
    for s, t in edges:
        for d in specs[t].dependencies:
            for o in specs[s].outputs:
                x = compat(d, o, specs[s])
                if x > 0.5:
                    cand.setdefault(t, {}).setdefault(d.logical_name, []).append((s, o.logical_name, x, d.required))
    res = {}
    for t, byd in cand.items():
        flat = [(dn,) + c for dn, cs in byd.items() for c in cs]
        flat.sort(key=lambda c: (not c[4], -c[3]))
        bound, used = {}, set()
        for dn, s, on, x, req in flat:
            if dn in bound or (s, on) in used: continue
            bound[dn] = [s, on, x]; used.add((s, on))
        res[t] = bound
    return res

STEPS = [("CradleDataLoading", None), ("CradleDataLoading", "training"), ("CradleDataLoading", "calibration"),
         ("DummyDataLoading", None), ("DummyDataLoading", "training"), ("TabularPreprocessing", None),
         ("TabularPreprocessing", "training"), ("TabularPreprocessing", "calibration"),
         ("RiskTableMapping", None), ("RiskTableMapping", "calibration"), ("MissingValueImputation", None),
         ("StratifiedSampling", None), ("XGBoostTraining", None), ("LightGBMTraining", None),
         ("XGBoostModelEval", None), ("XGBoostModelEval", "calibration"), ("ModelCalibration", None),
         ("ModelCalibration", "calibration"), ("Package", None), ("Payload", None), ("Registration", None),
         ("XGBoostModel", None), ("BatchTransform", None), ("BatchTransform", "calibration"),
         ("ModelMetricsComputation", None)]
out = {"steps": {}, "similarity": [], "ratios": [], "compatibility": [], "wiring": []}
loaded = {}
for st, jt in STEPS:
    key = st + ("/" + jt if jt else "")
    s = load(st, jt); loaded[key] = s
    out["steps"][key] = {
        "type": st, "aliases": sorted(l for l, c in LEGACY.items() if c == st),
        "inputs": [dict(name=d.logical_name, type=d.dependency_type, data_type=d.data_type, required=d.required,
                        sources=d.compatible_sources, keywords=d.semantic_keywords, config_source=d.config_source)
                   for d in s.dependencies],
        "outputs": [dict(name=o.logical_name, type=o.output_type, data_type=o.data_type,
                         property_path=o.property_path, aliases=o.aliases, keywords=o.semantic_keywords)
                    for o in s.outputs]}

names = set()
for s in loaded.values():
    for d in s.dependencies: names.add(d.logical_name)
    for o in s.outputs:
        names.add(o.logical_name); names.update(o.aliases)
names = sorted(names)
inputs = sorted({d.logical_name for s in loaded.values() for d in s.dependencies})
extra = [("input_path", "processed_data"), ("DATA", "processed_data"), ("training_data", "processed_data"),
         ("model_input", "model_output"), ("input_path", "input_path"), ("config", "configuration"),
         ("hyperparams_s3", "hyperparameters-s3.uri"), ("The Model", "a model"), ("eval_output", "evaluation output"),
         ("pkg", "packaged_model"), ("Model  Input!", "model-input"), ("reg_model", "registration"),
         ("x", "y"), ("abc", "abcd"), ("ünïcode_name", "unicode name")]
for a, b in extra + [(i, n) for i in inputs for n in names]:
    e = M.explain_similarity(a, b)
    out["similarity"].append([a, b, e["overall_score"], e["string_similarity"], e["token_similarity"],
                              e["semantic_similarity"], e["substring_similarity"]])
rnd = random.Random(7)
for i in range(300):
    alpha = rnd.choice(["ab", "abc ", "abcdefgh", "xyz_ab-"])
    la, lb = rnd.randint(0, 40), rnd.randint(0, 40)
    if i % 10 == 0: la, lb = rnd.randint(150, 400), rnd.randint(190, 450)
    a = "".join(rnd.choice(alpha) for _ in range(la)); b = "".join(rnd.choice(alpha) for _ in range(lb))
    out["ratios"].append([a, b, difflib.SequenceMatcher(None, a, b).ratio()])
for ck, c in loaded.items():
    for pk, p in loaded.items():
        for d in c.dependencies:
            for o in p.outputs:
                out["compatibility"].append([ck, d.logical_name, pk, o.logical_name, compat(d, o, p)])
cases = {
    "case1_training": (["CradleDataLoading_training", "TabularPreprocessing_training", "XGBoostTraining"],
                       [["CradleDataLoading_training", "TabularPreprocessing_training"], ["TabularPreprocessing_training", "XGBoostTraining"]]),
    "case2_two_loaders": (["CradleDataLoading_training", "CradleDataLoading_calibration", "TabularPreprocessing_training"],
                          [["CradleDataLoading_training", "TabularPreprocessing_training"], ["CradleDataLoading_calibration", "TabularPreprocessing_training"]]),
    "case8_model_transform": (["XGBoostTraining", "XGBoostModel", "TabularPreprocessing_calibration", "BatchTransform_calibration"],
                              [["XGBoostTraining", "XGBoostModel"], ["XGBoostModel", "BatchTransform_calibration"], ["TabularPreprocessing_calibration", "BatchTransform_calibration"]]),
    "case10_dummy_to_training": (["DummyDataLoading_training", "XGBoostTraining"], [["DummyDataLoading_training", "XGBoostTraining"]]),
}
e2e = json.load(open(src + "/pipeline_catalog/shared_dags/xgboost/complete_e2e.dag.json"))["dag"]
cases["case4_5_xgboost_complete_e2e"] = (e2e["nodes"], e2e["edges"])
for name, (nodes, edges) in cases.items():
    out["wiring"].append({"name": name, "nodes": nodes, "edges": edges, "bindings": wire(nodes, edges)})
json.dump(out, sys.stdout, separators=(",", ":"), ensure_ascii=False)
