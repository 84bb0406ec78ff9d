"""Launcher of a processing job whose code is one archive, as the SageMaker SDK's FrameworkProcessor
launches its runproc.sh: unpack the code, install its requirements, run the entry point.

Processing job layout
  /opt/ml/processing/input/code/sourcedir.tar.gz   the step's code: the entry point and every file
                                                   beside it (a source directory, or a script with
                                                   the helper modules it imports)
  /opt/ml/processing/input/entrypoint/runproc.py   this launcher
Command
  python3 runproc.py <entry point> [job arguments...]

The archive is unpacked into a fresh directory below /opt/ml/processing (the input folder may be
read-only), a requirements.txt at its top is installed with pip unless the image satisfies every
line already (the job then needs network access to an index, as with the SDK's launcher; an image
that has the packages needs none), and the entry point replaces this process, run from that
directory with the job's arguments, so its exit status is the job's.
"""
import json
import os
import subprocess
import sys
import tarfile
import tempfile

CODE_ARCHIVE = "/opt/ml/processing/input/code/sourcedir.tar.gz"
UNPACK_ROOT = "/opt/ml/processing"


def fail(msg):
    print("[runproc] ERROR: " + msg, file=sys.stderr, flush=True)
    sys.exit(2)


def unpack(archive, dst):
    """Unpacks the code archive below dst, refusing members that would land outside it."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = []
            for m in tar.getmembers():
                name = m.name[2:] if m.name.startswith("./") else m.name
                if name in ("", "."):
                    continue
                if name.startswith("/") or ".." in name.split("/") or not (m.isfile() or m.isdir()):
                    fail("the code archive holds %s, which would unpack outside its folder or is not a regular file" % m.name)
                members.append(m)
            tar.extractall(dst, members=members)
    except (tarfile.TarError, OSError, EOFError) as e:
        fail("cannot unpack the code archive %s: %s" % (archive, e))


def unmet(path):
    """The lines of a requirements file this interpreter does not satisfy, each with why; None when
    a line cannot be judged here (an option, a URL, no packaging module), so pip must decide."""
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


def main(argv):
    if len(argv) < 1:
        fail("usage: runproc.py <entry point> [arguments...]")
    entry, args = argv[0], argv[1:]
    archive = CODE_ARCHIVE
    if not os.path.isfile(archive):
        fail("the code archive %s is missing: the job's code input did not arrive" % archive)
    try:
        code = tempfile.mkdtemp(prefix="code-", dir=UNPACK_ROOT)
    except OSError:
        code = tempfile.mkdtemp(prefix="code-")
    unpack(archive, code)
    if not os.path.isfile(os.path.join(code, entry)):
        fail("the entry point %s is not in the code archive" % entry)
    os.chdir(code)
    if os.path.isfile("requirements.txt"):
        missing = unmet("requirements.txt")
        if missing == []:
            print("[runproc] requirements.txt is satisfied by the image", flush=True)
        else:
            print("[runproc] installing requirements.txt", flush=True)
            rc = subprocess.call([sys.executable, "-m", "pip", "install", "-r", "requirements.txt"])
            if rc != 0:
                what = "; missing: " + ", ".join(missing) if missing else ""
                fail("pip could not install requirements.txt (exit status %d)%s: the job needs network access to a "
                     "package index (not under network isolation), or an image that has the packages" % (rc, what))
    argv = [sys.executable, entry] + args
    environ = dict(os.environ)
    rewrite = environ.pop("CURSUS_REWRITE", None)
    if rewrite:
        # cursus-go's local runner without a sandbox: the entry point runs
        # through its path-rewriting launcher too, as this launcher did.
        launcher, table = json.loads(rewrite)
        argv = [sys.executable, launcher, table, entry] + args
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, environ)


if __name__ == "__main__":
    main(sys.argv[1:])
