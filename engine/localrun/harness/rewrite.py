# Path-rewriting launcher of cursus-go engine/localrun, used only where no
# sandbox can mount the container paths.
#
# Run as: python3 rewrite.py <table.json> <script.py> [args...]
# <table.json> is a JSON list of [container prefix, local directory] pairs.
# Every string constant of the script that is a prefix or lies below one
# (/opt/ml/processing/input/data, ...) is replaced by the same path under
# the local directory, and so is every constant of the modules the script
# imports from below a local directory (its own helpers). Then the script
# runs as __main__ with sys.argv = [script, args...]. Its exit status and
# exceptions are its own.
import ast
import importlib.abc
import importlib.machinery
import json
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: rewrite.py <table.json> <script.py> [args...]\n")
        return 2
    table = [(p.rstrip("/"), d.rstrip("/")) for p, d in json.loads(sys.argv[1])]
    script = sys.argv[2]
    roots = [d for _, d in table]

    def rebase(s):
        for prefix, local in table:
            if s == prefix or s.startswith(prefix + "/"):
                return local + s[len(prefix):]
        return s

    class Rebase(ast.NodeTransformer):
        def visit_Constant(self, node):
            if isinstance(node.value, str):
                v = rebase(node.value)
                if v != node.value:
                    return ast.copy_location(ast.Constant(v), node)
            return node

    def code_of(source, path):
        tree = ast.parse(source, filename=path)
        return compile(ast.fix_missing_locations(Rebase().visit(tree)), path, "exec")

    class Loader(importlib.machinery.SourceFileLoader):
        # Always compile from the rewritten source: a cached .pyc holds the
        # constants unrewritten.
        def get_code(self, fullname):
            path = self.get_filename(fullname)
            return code_of(self.get_data(path), path)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
            if spec is None or not spec.origin or not spec.origin.endswith(".py"):
                return spec
            origin = os.path.abspath(spec.origin)
            if any(origin.startswith(r + "/") for r in roots):
                spec.loader = Loader(fullname, spec.origin)
            return spec

    sys.meta_path.insert(0, Finder())
    sys.dont_write_bytecode = True
    with open(script, "rb") as f:
        code = code_of(f.read(), script)
    sys.argv = [script] + sys.argv[3:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    module = {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__}
    exec(code, module)
    return 0


sys.exit(main())
