# Fork-server probe of engine/localrun's BenchmarkRunLocalForkServer: runs
# a job as a fork server would, the modules of CURSUS_FORKPROBE_MODULES
# imported first (here, in this process; a server would import them once a
# run), then the job's script run in a child forked from the pre-imported
# interpreter. It prints the child's time and the imports'.
#
# Run as: python3 forkprobe.py <script> <args...> (inside the job's
# sandbox, in place of python3 <script> <args...>). A training harness that
# replaces itself with its entry point (os.execve) runs the entry point in
# the child instead.
import importlib, os, runpy, sys, time

t0 = time.perf_counter()
for m in os.environ.get("CURSUS_FORKPROBE_MODULES", "").split(","):
    if m:
        try:
            importlib.import_module(m)
        except Exception:
            pass
t1 = time.perf_counter()


def run_script(path, argv):
    sys.argv = [path] + list(argv)
    sys.path.insert(0, os.path.dirname(path))
    runpy.run_path(path, run_name="__main__")


def fake_execve(exe, argv, env):
    # a training harness replaces itself with the entry point: in the
    # forked child the entry point runs in this pre-imported interpreter
    os.environ.clear()
    os.environ.update(env)
    script, rest = argv[1], argv[2:]
    code = 0
    try:
        run_script(script, rest)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    sys.stdout.flush(); sys.stderr.flush()
    os._exit(code)


sys.stdout.flush(); sys.stderr.flush()
c0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execve = fake_execve
    code = 0
    try:
        run_script(sys.argv[1], sys.argv[2:])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    sys.stdout.flush(); sys.stderr.flush()
    os._exit(code)
_, status = os.waitpid(pid, 0)
c1 = time.perf_counter()
print("FORKPROBE child=%.4f preimport=%.4f" % (c1 - c0, t1 - t0), flush=True)
sys.exit(os.waitstatus_to_exitcode(status))
