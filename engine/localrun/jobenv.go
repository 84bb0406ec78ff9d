package localrun

import (
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// This file is the part of a job's environment the runner adds for speed,
// not for semantics. Each setting changes how fast a job runs here and
// nothing a script computes, and none is one a SageMaker container sets to
// another value (the job's own Environment wins over all of them):
//
//   - OMP_WAIT_POLICY=PASSIVE: OpenMP's idle threads sleep instead of
//     spinning. Spinning threads of one job (XGBoost's) take the CPUs from
//     the other threads of the same job and from the jobs running beside
//     it. No SageMaker framework container sets it.
//   - OMP_NUM_THREADS=<the CPUs the job may use>, only where that is fewer
//     than the CPUs the OpenMP runtime counts itself (a CPU quota of the
//     runner's cgroup, which OpenMP does not see): on a SageMaker instance
//     the runtime's own count is the instance's CPUs, so a script sees the
//     thread count it would see on an instance of that size. Where the
//     counts agree it is not set, as the framework images do not set it;
//     the XGBoost serving container's own default (1) is kept by its
//     contract (containers.go).
//   - SETUPTOOLS_USE_DISTUTILS=stdlib (Python 3.11 and older): import
//     distutils from the standard library instead of through setuptools'
//     shim, which loads pkg_resources on the way (joblib, and so
//     scikit-learn, imports distutils). From Python 3.12 on there is no
//     standard-library distutils, and it is not set.
//   - A matplotlib cache that persists across the jobs of a run: the run's
//     .cursus/matplotlib directory at the cache directory matplotlib uses
//     by default in the sandbox ($HOME/.cache/matplotlib, HOME being /tmp),
//     so its font list is built once a run instead of in every step that
//     draws. No variable is set (MPLCONFIGDIR would be one a script sees).
//
// docs/local-run.md gives the measured effect of each.

// tuning switches the runner's speed settings; the zero value is the
// default (every setting on, steps in parallel as the pipeline and the
// machine allow). Benchmarks switch them off one by one to measure each.
type tuning struct {
	noOMPPassive, noThreads, noDistutils, noMPLCache bool
	// maxParallel bounds the steps running at once (0: the default).
	maxParallel int
	// jobEnv is added to every job's environment (benchmarks: the import
	// profile of the floor's measurement).
	jobEnv map[string]string
	// forkProbe, when set, is a script on the host that every Python job
	// runs through (at forkProbeContainer): it imports the modules of
	// CURSUS_FORKPROBE_MODULES, then forks and runs the job's script in
	// the child, and prints how long the child took (the fork server
	// study of BenchmarkRunLocalForkServer).
	forkProbe string
}

// forkProbeContainer is where tuning.forkProbe is mounted.
const forkProbeContainer = "/tmp/forkprobe.py"

// mplCacheContainer is where the run's matplotlib cache is mounted in a
// bubblewrap sandbox: matplotlib's default cache directory with HOME=/tmp.
const mplCacheContainer = "/tmp/.cache/matplotlib"

// speedEnv adds the speed settings to a job's environment, leaving every
// variable the job sets itself, and the matplotlib cache to its mounts.
func (r *run) speedEnv(j *Job) {
	t := r.opts.tune
	add := func(k, v string) {
		if _, ok := j.Env[k]; !ok {
			j.Env[k] = v
		}
	}
	if j.Env == nil {
		j.Env = map[string]string{}
	}
	for k, v := range t.jobEnv {
		add(k, v)
	}
	if !t.noOMPPassive {
		add("OMP_WAIT_POLICY", "PASSIVE")
	}
	if n, own := jobCPUs(); !t.noThreads && n < own {
		add("OMP_NUM_THREADS", strconv.Itoa(n))
	}
	if !t.noDistutils && r.pyMinor > 0 && r.pyMinor < 12 {
		add("SETUPTOOLS_USE_DISTUTILS", "stdlib")
	}
	if t.forkProbe != "" && len(j.Command) > 1 && pythonName().MatchString(path.Base(j.Command[0])) {
		j.Command = append([]string{j.Command[0], forkProbeContainer}, j.Command[1:]...)
		j.Mounts = append(j.Mounts, Mount{Container: forkProbeContainer, Host: t.forkProbe})
	}
	if !t.noMPLCache && r.ex.sandbox == Bubblewrap && r.mplCache != "" {
		for _, m := range j.Mounts {
			if m.Container == mplCacheContainer || strings.HasPrefix(mplCacheContainer, m.Container+"/") {
				return
			}
		}
		j.Mounts = append(j.Mounts, Mount{Container: mplCacheContainer, Host: r.mplCache, Writable: true})
	}
}

// pythonMinor is the minor version of a Python 3 interpreter's version
// text ("3.11.2" -> 11), 0 when it is not one.
func pythonMinor(v string) int {
	rest, ok := strings.CutPrefix(v, "3.")
	if !ok {
		return 0
	}
	minor, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(minor)
	if err != nil {
		return 0
	}
	return n
}

var (
	cpusOnce          sync.Once
	cpusJob, cpusSeen int
)

// jobCPUs returns the CPUs a job may use (the runner's: the CPUs it may
// run on, bounded by its cgroup's CPU quota) and the CPUs the OpenMP
// runtime counts itself (those it may run on).
func jobCPUs() (budget, own int) {
	cpusOnce.Do(func() {
		cpusSeen = runtime.NumCPU() // the affinity mask, as OpenMP counts
		cpusJob = cpusSeen
		if q := cgroupCPUQuota(); q > 0 && q < float64(cpusJob) {
			cpusJob = max(1, int(math.Ceil(q)))
		}
	})
	return cpusJob, cpusSeen
}

// cgroupCPUQuota reads the CPU quota (CPUs' worth of time) of this
// process's cgroup, v2 (cpu.max) or v1 (cpu.cfs_quota_us over
// cpu.cfs_period_us); 0 when there is none.
func cgroupCPUQuota() float64 {
	rel := func(controller string) string {
		b, err := os.ReadFile("/proc/self/cgroup")
		if err != nil {
			return ""
		}
		for _, line := range strings.Split(string(b), "\n") {
			parts := strings.SplitN(line, ":", 3)
			if len(parts) != 3 {
				continue
			}
			for _, c := range strings.Split(parts[1], ",") {
				if c == controller {
					return parts[2]
				}
			}
		}
		return ""
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	if p := rel(""); p != "" {
		if f := strings.Fields(read(filepath.Join("/sys/fs/cgroup", p, "cpu.max"))); len(f) == 2 && f[0] != "max" {
			quota, err1 := strconv.ParseFloat(f[0], 64)
			period, err2 := strconv.ParseFloat(f[1], 64)
			if err1 == nil && err2 == nil && period > 0 {
				return quota / period
			}
		}
	}
	if p := rel("cpu"); p != "" {
		for _, base := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"} {
			quota, err1 := strconv.ParseFloat(read(filepath.Join(base, p, "cpu.cfs_quota_us")), 64)
			period, err2 := strconv.ParseFloat(read(filepath.Join(base, p, "cpu.cfs_period_us")), 64)
			if err1 == nil && err2 == nil && quota > 0 && period > 0 {
				return quota / period
			}
		}
	}
	return 0
}

// pythonVersion is the version of the interpreter at path ("" when it
// does not answer), probed once per path.
func pythonVersion(path string) string {
	if p := FindPython(); p.Available && p.Path == path {
		return p.Version
	}
	if p, ok := pythons.Load(path); ok {
		return p.(Python).Version
	}
	p := probePython(path)
	pythons.Store(path, p)
	return p.Version
}
