# Local runner for step scripts (cursus-go engine/validation, RunScripts).
#
# Run as: python3 -I -c "<this file>" <script.py> <root> [script args...]
# It parses the script, rewrites every string constant that is a container
# path (/opt/ml or below it) to the same path under <root>, and executes the
# rewritten module as __main__ with sys.argv = [script, args...]. The
# script's own exit status and exceptions are its result.
import ast
import os
import sys

PREFIX = "/opt/ml"


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: runner <script.py> <root> [args...]\n")
        return 2
    script, root = sys.argv[1], sys.argv[2].rstrip("/")
    args = sys.argv[3:]

    def rebase(s):
        if s == PREFIX or s.startswith(PREFIX + "/"):
            return root + s
        return s

    class Rebase(ast.NodeTransformer):
        def visit_Constant(self, node):
            if isinstance(node.value, str):
                v = rebase(node.value)
                if v != node.value:
                    return ast.copy_location(ast.Constant(v), node)
            return node

    with open(script, encoding="utf-8") as f:
        src = f.read()
    tree = ast.parse(src, filename=script)
    tree = ast.fix_missing_locations(Rebase().visit(tree))
    code = compile(tree, script, "exec")
    sys.argv = [script] + args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    module = {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__}
    exec(code, module)
    return 0


sys.exit(main())
