#!/usr/bin/env python3
"""Generates original_golden.json from cursus (Python) (TianpeiLuke/cursus).

Usage: gen_golden.py <path to a checkout of cursus's src/cursus>

It runs cursus's SemanticMatcher and difflib, reads cursus's step
interface files (spec section, job-type variants deep-merged), scores
compatibility with cursus's UnifiedDependencyResolver._calculate_compatibility
itself (loaded from the checkout, not restated here) and computes the
assembler's wiring (candidates over DAG edges, then greedy assignment with
uniqueness). The second resolver pass is
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

# The compatibility score is cursus's own: UnifiedDependencyResolver is
# loaded from the checkout with its package's other modules stubbed (the
# registry lookup it tries first then fails, and it takes its own suffix
# fallback), and its _calculate_compatibility scores each pair.
import enum, types

def _module(name, path=None, package=None):
    if path is None:
        m = types.ModuleType(name)
    else:
        sp = importlib.util.spec_from_file_location(name, path)
        m = importlib.util.module_from_spec(sp)
    if package is not None:
        m.__path__ = []
    sys.modules[name] = m
    if path is not None:
        sp.loader.exec_module(m)
    return m

for pkg in ("cursus", "cursus.core", "cursus.core.deps"):
    _module(pkg, package=True)
_base = _module("cursus.core.base", package=True)
_enums = _module("cursus.core.base.enums", src + "/core/base/enums.py")
_base.DependencyType = _enums.DependencyType
_module("cursus.core.deps.property_reference").PropertyReference = object
_module("cursus.core.deps.specification_registry").SpecificationRegistry = object
_module("cursus.core.deps.semantic_matcher").SemanticMatcher = sm.SemanticMatcher
_resolver = _module("cursus.core.deps.dependency_resolver", src + "/core/deps/dependency_resolver.py")
R = _resolver.UnifiedDependencyResolver(None, M)
DT = _enums.DependencyType

def compat(d, o, P):
    dep = NS(**{**d.__dict__, "dependency_type": DT(d.dependency_type)})
    out = NS(**{**o.__dict__, "output_type": DT(o.output_type)})
    return R._calculate_compatibility(dep, out, P)

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
