package localrun

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cursus-go/cursus/internal/proc"
)

// What a bubblewrap job sees and can do. docs/local-run.md's "What a job
// sees" section is this list in prose; keep the two together.
//
// The job runs as an unprivileged user: the runner's own user, or, when
// the runner is root, EnvSandboxUser (default 65534:65534, nobody). bwrap
// itself runs as that user, so the user namespace it makes maps only that
// user, and the job has no capability in it (--cap-drop ALL), cannot make
// another (--disable-userns) and passes the seccomp filter (seccomp.go).
// It has its own mount, PID, IPC, UTS (hostname algo-1), network (only a
// loopback interface), cgroup and user namespaces, its own session, and
// dies with the runner.
//
// Its file system is a fresh tmpfs root, read-only once set up, holding:
//
//   - /usr, and the top-level links of a merged /usr (/bin, /sbin, /lib,
//     /lib64, ...) as the host has them (or the directories, bound);
//   - of /etc only the files in etcAllowed (the dynamic linker's cache and
//     configuration, alternatives, time zone, name service, MIME and
//     certificate files, Python's and matplotlib's configuration), and a
//     passwd and group of its own that name root, nobody and its user:
//     no shadow, gshadow, sudoers, SSH host keys or private keys;
//   - the interpreter's installation (sys.prefix and sys.base_prefix,
//     where they lie outside /usr);
//   - /sys/devices/system/cpu (how many CPUs there are) and nothing else
//     of /sys;
//   - a fresh /proc of its PID namespace and a minimal /dev (null, zero,
//     full, random, urandom, tty, a size-bounded /dev/shm);
//   - a size-bounded tmpfs at /tmp (its HOME and TMPDIR) and at /opt/ml,
//     with the job's inputs bound read-only and its outputs read-write at
//     their container paths below /opt/ml, and the harness scripts at
//     /cursus.
//
// Nothing else of the host is there: no home directory, /root, /run,
// /var, /srv, /mnt, /media or /opt outside /opt/ml, so no host socket and
// no other process's files.

// etcAllowed are the entries of /etc a job sees (those the host has).
var etcAllowed = []string{
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
	"localtime", "timezone", "nsswitch.conf", "host.conf", "hosts", "gai.conf", "protocols", "services",
	"mime.types", "magic", "magic.mime", "mailcap",
	"ssl/certs", "ssl/openssl.cnf", "ca-certificates", "ca-certificates.conf", "pki/tls/certs", "pki/ca-trust/extracted",
	"os-release", "debian_version", "lsb-release", "locale.alias", "locale.conf",
	"fonts", "matplotlibrc",
}

// etcPrefixes are prefixes of /etc entries a job sees (python3, python3.11).
var etcPrefixes = []string{"python3"}

// usrLinks are the top-level entries a merged /usr makes links.
var usrLinks = []string{"bin", "sbin", "lib", "lib32", "lib64", "libx32"}

// defaultSandboxUser is the user jobs run as when the runner is root.
var defaultSandboxUser = proc.User{UID: 65534, GID: 65534}

// bwrapBox is how every bubblewrap job of an executor is set up.
type bwrapBox struct {
	// links are symbolic links of the view (target, path); public are
	// host paths every user may reach, bound read-only where they are;
	// private are the runner's own paths (the interpreter under a home
	// directory, the generated passwd), bound read-only at a container
	// path.
	links   [][2]string
	public  []string
	private []Mount
	// user is the user jobs run as (nil: the runner's own). Then, too,
	// stage is set: bwrap, running as that user, could not reach the
	// runner's own paths, so they are bound for it into a directory of
	// a mount namespace private to the thread that starts it (stage.go).
	user  *proc.User
	stage bool
	// seccomp is the job filter (seccomp.go).
	seccomp []byte
}

// newBwrapBox prepares the view of the host and the user of the jobs of
// an executor whose interpreter is python (installed at prefixes) and
// whose harness scripts are in harness.
func newBwrapBox(python string, prefixes []string, harness string) (*bwrapBox, error) {
	b := &bwrapBox{}
	if os.Geteuid() == 0 {
		u, err := sandboxUser()
		if err != nil {
			return nil, err
		}
		b.user, b.stage = &u, true
	}
	for _, name := range usrLinks {
		p := "/" + name
		st, err := os.Lstat(p)
		switch {
		case err != nil:
		case st.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(p); err == nil {
				b.links = append(b.links, [2]string{t, p})
			}
		case st.IsDir():
			b.public = append(b.public, p)
		}
	}
	b.public = append(b.public, "/usr")
	etc := append([]string(nil), etcAllowed...)
	if ents, err := os.ReadDir("/etc"); err == nil {
		for _, e := range ents {
			for _, pre := range etcPrefixes {
				if strings.HasPrefix(e.Name(), pre) {
					etc = append(etc, e.Name())
				}
			}
		}
	}
	for _, name := range etc {
		p := "/etc/" + name
		st, err := os.Lstat(p)
		switch {
		case err != nil:
		case st.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(p); err == nil {
				b.links = append(b.links, [2]string{t, p})
			}
		case st.IsDir() || st.Mode().IsRegular():
			b.public = append(b.public, p)
		}
	}
	if st, err := os.Stat("/sys/devices/system/cpu"); err == nil && st.IsDir() {
		b.public = append(b.public, "/sys/devices/system/cpu")
	}
	// The interpreter's installation, where /usr does not hold it.
	var installs []string
	if python != "" {
		installs = append(installs, filepath.Dir(filepath.Dir(python)))
	}
	for _, p := range append(installs, prefixes...) {
		p = filepath.Clean(p)
		if p == "" || p == "/" || !filepath.IsAbs(p) || within2(p, "/usr") {
			continue
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		dup := false
		for _, m := range b.private {
			dup = dup || within2(p, m.Container)
		}
		if !dup {
			b.private = append(b.private, Mount{Container: p, Host: p})
		}
	}
	// A passwd and group of the sandbox's own.
	etcDir := filepath.Join(filepath.Dir(harness), "etc")
	if err := os.MkdirAll(etcDir, 0o755); err != nil {
		return nil, err
	}
	uid, gid := os.Getuid(), os.Getgid()
	if b.user != nil {
		uid, gid = int(b.user.UID), int(b.user.GID)
	}
	passwd := "root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	group := "root:x:0:\nnogroup:x:65534:\n"
	if uid != 0 && uid != 65534 {
		passwd += fmt.Sprintf("cursus:x:%d:%d:cursus job:/tmp:/usr/sbin/nologin\n", uid, gid)
	}
	if gid != 0 && gid != 65534 {
		group += fmt.Sprintf("cursus:x:%d:\n", gid)
	}
	for name, body := range map[string]string{"passwd": passwd, "group": group} {
		f := filepath.Join(etcDir, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			return nil, err
		}
		b.private = append(b.private, Mount{Container: "/etc/" + name, Host: f})
	}
	b.private = append(b.private, Mount{Container: harnessContainerDir, Host: harness})
	var err error
	if b.seccomp, err = seccompProgram(); err != nil {
		return nil, err
	}
	return b, nil
}

// within2 reports whether p is dir or lies below it.
func within2(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// sandboxUser is the user jobs run as under a root runner.
func sandboxUser() (proc.User, error) {
	v := strings.TrimSpace(os.Getenv(EnvSandboxUser))
	if v == "" {
		return defaultSandboxUser, nil
	}
	us, gs, ok := strings.Cut(v, ":")
	if !ok {
		gs = us
	}
	uid, err1 := strconv.ParseUint(us, 10, 32)
	gid, err2 := strconv.ParseUint(gs, 10, 32)
	if err1 != nil || err2 != nil || uid == 0 || gid == 0 {
		return proc.User{}, &InputError{Field: EnvSandboxUser, Problem: fmt.Sprintf("%q: want uid:gid of a user other than root (default 65534:65534)", v)}
	}
	return proc.User{UID: uint32(uid), GID: uint32(gid)}, nil
}

// Sizes of the tmpfs mounts of a job, as shares of its memory limit: a
// tmpfs holds its files in memory, which no address-space limit counts.
const (
	tmpShare   = 8 // /tmp: an eighth of the memory limit
	optMLShare = 8 // /opt/ml (what a job writes outside its outputs)
	shmShare   = 16
)

// tmpfsSize is the size of a tmpfs of a job with the given memory limit
// and share (1/share of it; 256 MiB each when the job has no limit).
func tmpfsSize(memory int64, share int64) int64 {
	if memory <= 0 {
		return 256 << 20
	}
	return max(memory/share, 16<<20)
}

// runBwrap runs a job in its bubblewrap sandbox.
func (ex *executor) runBwrap(ctx context.Context, j Job, argv []string) (*proc.Result, error) {
	b := ex.box
	env := ex.baseEnv("/tmp")
	for k, v := range j.Env {
		env[k] = v
	}
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	fd := func(f *os.File) string {
		files = append(files, f)
		return strconv.Itoa(2 + len(files)) // ExtraFiles are descriptors 3, 4, ...
	}
	seccompR, err := pipeWith(b.seccomp)
	if err != nil {
		return nil, err
	}
	a := []string{"--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
		"--hostname", "algo-1", "--cap-drop", "ALL", "--seccomp", fd(seccompR)}
	for _, l := range b.links {
		a = append(a, "--symlink", l[0], l[1])
	}
	for _, p := range b.public {
		a = append(a, "--ro-bind", p, p)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev",
		"--size", strconv.FormatInt(tmpfsSize(j.MemoryBytes, shmShare), 10), "--tmpfs", "/dev/shm",
		"--size", strconv.FormatInt(tmpfsSize(j.MemoryBytes, tmpShare), 10), "--tmpfs", "/tmp",
		"--size", strconv.FormatInt(tmpfsSize(j.MemoryBytes, optMLShare), 10), "--tmpfs", "/opt/ml")
	mounts := append(append([]Mount(nil), b.private...), j.Mounts...)
	sort.SliceStable(mounts[len(b.private):], func(i, k int) bool {
		return mounts[len(b.private)+i].Container < mounts[len(b.private)+k].Container
	})
	var st *staging
	if b.stage {
		if st, err = newStaging(); err != nil {
			return nil, err
		}
		defer st.remove()
	}
	for _, m := range mounts {
		flag := "--ro-bind"
		if m.Writable {
			flag = "--bind"
			if b.user != nil {
				if err := giveTo(m.source(), *b.user); err != nil {
					return nil, fmt.Errorf("mount %s: %w", m.Container, err)
				}
			}
		}
		switch {
		case st != nil:
			a = append(a, flag, st.add(m.source()), m.Container)
		case m.at == nil:
			a = append(a, flag, m.Host, m.Container)
		default:
			// What an earlier job shaped is opened through a root on the
			// directory it lies in and handed over as a descriptor (bwrap
			// checks that it mounts that very file).
			f, _, err := m.at.openMount()
			if err != nil {
				return nil, fmt.Errorf("mount %s: %w", m.Container, err)
			}
			a = append(a, flag+"-fd", fd(f), m.Container)
		}
	}
	dir := j.Dir
	if dir == "" {
		dir = "/opt/ml"
	}
	a = append(a, "--remount-ro", "/", "--chdir", dir, "--")
	a = append(a, argv...)
	cmd := ex.limits(proc.Cmd{Path: ex.bwrap, Args: a, Env: environ(env),
		CombinedOutput: true, MaxOutput: maxLog, ExtraFiles: files, User: b.user}, j)
	if st != nil {
		cmd.Setup = st.setup
	}
	return proc.Run(ctx, cmd)
}

// pipeWith returns the read end of a pipe holding data (small enough for
// the pipe's buffer).
func pipeWith(data []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// giveTo makes the user the owner of the directory (and what it holds)
// or file h names, without following a link: a job running as that user
// writes there.
func giveTo(h hostPath, u proc.User) error {
	r, name, err := h.root()
	if err != nil {
		if h.rel == "" {
			// A file taken as it is: its own directory is the root.
			return giveFile(h.dir, u)
		}
		return err
	}
	defer r.Close()
	st, err := r.Lstat(name)
	if err != nil {
		return h.pathError(err)
	}
	if !st.IsDir() {
		return r.Lchown(name, int(u.UID), int(u.GID))
	}
	sub, err := r.OpenRoot(name)
	if err != nil {
		return h.pathError(err)
	}
	defer sub.Close()
	return fs.WalkDir(sub.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return sub.Lchown(p, int(u.UID), int(u.GID))
	})
}

func giveFile(p string, u proc.User) error {
	return os.Lchown(p, int(u.UID), int(u.GID))
}
