# Static analysis of step scripts for cursus-go (engine/validation).
#
# Run as: python3 -I -c "<this file>" (Go passes the program text with -c)
# with one JSON object {"path": ..., "source": ...} per line on standard
# input: the Go side reads the scripts, so this program opens no file. For
# every script it prints one JSON object on its own line
# with the string constants that name container paths, the environment
# variables read, the argparse flags declared, the keys used on the
# main(input_paths, output_paths, environ_vars, job_args) parameters and the
# attributes read from job_args. Nothing in the scripts is executed: the
# source is only parsed with the ast module.
import ast
import json
import sys

PATH_MODULES = {"os.path", "posixpath", "path"}
PATH_CLASSES = {"Path", "PurePath", "PosixPath", "PurePosixPath", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"}


def dotted(node):
    """Return a dotted name for Name/Attribute chains, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def join_paths(parts):
    out = ""
    for p in parts:
        if p.startswith("/"):
            out = p
        elif out == "" or out.endswith("/"):
            out = out + p
        else:
            out = out + "/" + p
    return out


class Analyzer(ast.NodeVisitor):
    def __init__(self):
        self.consts = {}
        self.strings = []  # (value, line)
        self.env_reads = []
        self.env_writes = []
        self.flags = []
        self.input_keys = []
        self.output_keys = []
        self.job_arg_attrs = []
        self.functions = []
        self.main_params = None
        self.imports = []
        self.param_names = {"inputs": "input_paths", "outputs": "output_paths", "env": "environ_vars", "args": "job_args"}
        self.environ_aliases = {"os.environ", "environ"}
        self.getenv_aliases = {"os.getenv", "getenv", "os.environ.get", "environ.get"}

    # --- constant folding -------------------------------------------------
    def fold(self, node, depth=0):
        if depth > 20 or node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.consts.get(node.id)
        if isinstance(node, ast.BinOp):
            left = self.fold(node.left, depth + 1)
            right = self.fold(node.right, depth + 1)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Div):
                return join_paths([left, right])
            return None
        if isinstance(node, ast.JoinedStr):
            out = ""
            for v in node.values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    out += v.value
                elif isinstance(v, ast.FormattedValue):
                    x = self.fold(v.value, depth + 1)
                    if x is None:
                        return None
                    out += x
                else:
                    return None
            return out
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if name.endswith(".join") and name[: -len(".join")] in PATH_MODULES:
                parts = [self.fold(a, depth + 1) for a in node.args]
                if parts and all(p is not None for p in parts):
                    return join_paths(parts)
                return None
            if name in PATH_CLASSES and node.args:
                parts = [self.fold(a, depth + 1) for a in node.args]
                if all(p is not None for p in parts):
                    return join_paths(parts)
            if name == "str" and len(node.args) == 1:
                return self.fold(node.args[0], depth + 1)
        return None

    def record_string(self, value, node):
        self.strings.append({"value": value, "line": getattr(node, "lineno", 0)})

    # --- visitors ---------------------------------------------------------
    def visit_Import(self, node):
        for a in node.names:
            self.imports.append(a.name)
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        self.imports.append(mod)
        for a in node.names:
            if mod == "os" and a.name == "environ":
                self.environ_aliases.add(a.asname or "environ")
            if mod == "os" and a.name == "getenv":
                self.getenv_aliases.add(a.asname or "getenv")
        self.generic_visit(node)

    def visit_Assign(self, node):
        value = self.fold(node.value)
        for t in node.targets:
            if isinstance(t, ast.Name):
                if value is not None:
                    self.consts[t.id] = value
                elif isinstance(node.value, (ast.Attribute, ast.Name)) and dotted(node.value) in self.environ_aliases:
                    self.environ_aliases.add(t.id)
            elif isinstance(t, ast.Subscript) and dotted(t.value) in self.environ_aliases:
                key = self.fold(t.slice)
                if key is not None:
                    self.env_writes.append({"name": key, "line": node.lineno})
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if isinstance(node.target, ast.Name) and node.value is not None:
            value = self.fold(node.value)
            if value is not None:
                self.consts[node.target.id] = value
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        self.functions.append(node.name)
        if node.name == "main" and self.main_params is None:
            params = [a.arg for a in node.args.posonlyargs + node.args.args]
            self.main_params = params
            keys = ["inputs", "outputs", "env", "args"]
            for k, p in zip(keys, params):
                self.param_names[k] = p
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            self.record_string(node.value, node)

    def visit_BinOp(self, node):
        v = self.fold(node)
        if v is not None:
            self.record_string(v, node)
        self.generic_visit(node)

    def visit_JoinedStr(self, node):
        v = self.fold(node)
        if v is not None:
            self.record_string(v, node)
        self.generic_visit(node)

    def visit_Subscript(self, node):
        base = dotted(node.value)
        key = self.fold(node.slice)
        if key is not None and isinstance(node.ctx, ast.Load):
            if base in self.environ_aliases:
                self.env_reads.append({"name": key, "line": node.lineno, "kind": "subscript", "has_default": False})
            elif base == self.param_names["env"]:
                self.env_reads.append({"name": key, "line": node.lineno, "kind": "environ_vars", "has_default": False})
            elif base == self.param_names["inputs"]:
                self.input_keys.append({"name": key, "line": node.lineno})
            elif base == self.param_names["outputs"]:
                self.output_keys.append({"name": key, "line": node.lineno})
        self.generic_visit(node)

    def visit_Compare(self, node):
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            container = dotted(node.comparators[0])
            key = self.fold(node.left)
            if key is not None and container in self.environ_aliases:
                self.env_reads.append({"name": key, "line": node.lineno, "kind": "membership", "has_default": True})
            elif key is not None and container == self.param_names["env"]:
                self.env_reads.append({"name": key, "line": node.lineno, "kind": "environ_vars", "has_default": True})
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.param_names["args"] and isinstance(node.ctx, ast.Load):
            self.job_arg_attrs.append({"name": node.attr, "line": node.lineno})
        self.generic_visit(node)

    def visit_Call(self, node):
        name = dotted(node.func) or ""
        first = self.fold(node.args[0]) if node.args else None
        has_default = len(node.args) > 1 or any(k.arg == "default" for k in node.keywords)
        if first is not None:
            if name in self.getenv_aliases or any(name == a + ".get" for a in self.environ_aliases):
                self.env_reads.append({"name": first, "line": node.lineno, "kind": "get", "has_default": has_default})
            elif any(name == a + ".setdefault" for a in self.environ_aliases):
                self.env_reads.append({"name": first, "line": node.lineno, "kind": "setdefault", "has_default": True})
            elif name == self.param_names["env"] + ".get":
                self.env_reads.append({"name": first, "line": node.lineno, "kind": "environ_vars", "has_default": has_default})
            elif name == self.param_names["inputs"] + ".get":
                self.input_keys.append({"name": first, "line": node.lineno})
            elif name == self.param_names["outputs"] + ".get":
                self.output_keys.append({"name": first, "line": node.lineno})
        if name.endswith("add_argument"):
            opts = []
            for a in node.args:
                v = self.fold(a)
                if v is not None:
                    opts.append(v)
            flags = [o for o in opts if o.startswith("-")]
            dest = None
            required = False
            for k in node.keywords:
                if k.arg == "dest":
                    dest = self.fold(k.value)
                elif k.arg == "required" and isinstance(k.value, ast.Constant):
                    required = bool(k.value.value)
            if flags:
                long = [f for f in flags if f.startswith("--")]
                if dest is None:
                    dest = (long[0] if long else flags[0]).lstrip("-").replace("-", "_")
                self.flags.append({"flags": flags, "dest": dest, "required": required, "line": node.lineno})
        v = self.fold(node)
        if v is not None and not (isinstance(node.func, ast.Name) and node.func.id == "str"):
            self.record_string(v, node)
        self.generic_visit(node)


def analyze(path, src):
    try:
        return analyze_source(path, src)
    except (RecursionError, MemoryError):
        # Nesting deeper than the parser or the visitor can follow.
        return {"path": path, "ok": False, "error_kind": "syntax", "error": "the script is nested too deeply to analyse (expressions or blocks thousands of levels deep)"}


def analyze_source(path, src):
    try:
        tree = ast.parse(src, filename=path)
    except SyntaxError as e:
        return {"path": path, "ok": False, "error_kind": "syntax", "error": "%s (line %s)" % (e.msg, e.lineno), "line": e.lineno}
    except ValueError as e:
        return {"path": path, "ok": False, "error_kind": "syntax", "error": str(e)}
    a = Analyzer()
    # Two passes: the first collects module constants used by later folds.
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            a.visit(stmt)
    a.strings, a.env_reads, a.env_writes = [], [], []
    a.visit(tree)
    seen = set()
    strings = []
    for s in a.strings:
        key = (s["value"], s["line"])
        if key in seen or "/opt/ml" not in s["value"]:
            continue
        seen.add(key)
        strings.append(s)
    return {
        "path": path,
        "ok": True,
        "container_paths": strings,
        "env_reads": a.env_reads,
        "env_writes": a.env_writes,
        "argparse": a.flags,
        "input_keys": a.input_keys,
        "output_keys": a.output_keys,
        "job_arg_attrs": a.job_arg_attrs,
        "has_main": a.main_params is not None,
        "main_params": a.main_params or [],
        "functions": a.functions,
        "imports": sorted(set(i for i in a.imports if i)),
    }


def run():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        sys.stdout.write(json.dumps(analyze(req["path"], req["source"])) + "\n")


run()
