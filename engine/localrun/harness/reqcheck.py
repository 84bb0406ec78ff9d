"""What the local runner does where a SageMaker container pip-installs a requirements.txt (the
training toolkit beside the entry point, the inference toolkits from the model's code/): it
installs nothing (a job's sandbox has no network), so it checks that the interpreter satisfies
every line, and a job whose requirements it lacks fails naming them, as the container would fail
without a package index."""
import os
import sys


def unmet(path):
    """The lines of a requirements file the interpreter does not satisfy, each with why; None when
    a line cannot be judged (a pip option, a URL, no packaging module)."""
    try:
        from importlib import metadata
    except ImportError:
        return None
    try:
        from packaging.requirements import Requirement
    except ImportError:
        try:
            from pip._vendor.packaging.requirements import Requirement
        except ImportError:
            return None
    out = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("-"):
                return None
            try:
                req = Requirement(line)
            except Exception:
                return None
            if req.url:
                return None
            if req.marker is not None and not req.marker.evaluate():
                continue
            try:
                have = metadata.version(req.name)
            except metadata.PackageNotFoundError:
                out.append("%s (not installed)" % line)
                continue
            if not req.specifier.contains(have, prereleases=True):
                out.append("%s (%s %s installed)" % (line, req.name, have))
    return out


def check(code_dir, who):
    """Checks code_dir/requirements.txt; returns an error message, or None when it is satisfied
    (or absent). who names the container that would install it."""
    path = os.path.join(code_dir, "requirements.txt")
    if not os.path.exists(path):
        return None
    missing = unmet(path)
    if missing is None:
        sys.stderr.write("note: %s cannot be checked here (pip options or URLs); the local runner installs nothing, "
                         "the interpreter's packages are used\n" % path)
        return None
    if not missing:
        return None
    return ("%s asks for %s, which this interpreter lacks: %s would pip-install it before the code runs (network access "
            "to a package index, which an isolated job has not), but the local runner installs nothing: install it into "
            "the interpreter (%s -m pip install ...) or run with one that has it"
            % (path, ", ".join(missing), who, sys.executable))
