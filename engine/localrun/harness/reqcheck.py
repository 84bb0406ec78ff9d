"""What the local runner does where a SageMaker container pip-installs a requirements.txt (the
training toolkit beside the entry point, the inference toolkits from the model's code/): it
installs nothing (a job's sandbox has no network), so it checks that the interpreter satisfies
every line, and a job whose requirements it lacks fails naming them, as the container would fail
without a package index."""
import os
import sys

# The shipped processing launcher's check (written beside the harness by the runner): one judgement of
# a requirements.txt, the same locally and in a SageMaker job.
from runproc import unmet


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
