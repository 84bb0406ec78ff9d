// Package safefs is the one file-access layer of Cursus: every tool reads
// and writes files through an *FS, and engine code that touches files takes
// one (or finds it in its context, From).
//
// An FS is either confined or trusted.
//
//   - A confined FS (New with Options.Root) reaches only the files under its
//     root, for reading and writing, plus the files under its read-only
//     roots (Options.ReadRoots) for reading. It is built on os.Root: every
//     path is resolved component by component from an open directory, so
//     "..", absolute paths and symbolic links cannot leave the root, and a
//     directory swapped for a symbolic link while a call runs cannot make it
//     leave either (no check-then-use race). A relative path is taken from
//     the root; an absolute path must name a place under the root (or under
//     a read-only root, to read).
//   - A trusted FS (Trusted, or New without a root) reads and writes where
//     it is pointed, relative paths from the working directory: the CLI and
//     in-process Go callers are trusted, like any command their user runs.
//
// Every FS, trusted or not, protects its caller the same way:
//
//   - Only regular files are read. A device, FIFO, socket or directory is
//     refused from its metadata, before it is opened; the file is then
//     opened without blocking (O_NONBLOCK, O_NOCTTY) and checked again on
//     the open descriptor (a FIFO swapped in meanwhile is refused, not
//     waited on). Files of virtual file systems (/proc, /sys, debugfs,
//     cgroupfs, ...) are refused too: their sizes lie and reading them can
//     hijack the process's own descriptors (/proc/self/fd/0).
//   - Every read has a size cap that depends on the kind of file (Kind,
//     Limits): a config file, a DAG file, a script... The cap is checked
//     before reading and enforced while reading; a file over it fails with
//     a *TooLargeError that names the limit.
//   - Writes are atomic: the content goes to a temporary file in the
//     target's own directory (an unnamed O_TMPFILE where Linux offers it, so
//     even a killed process leaves nothing behind), is synced, and is
//     renamed over the target. Missing parent directories are created only
//     for a write that succeeds: on any failure every directory the write
//     created is removed again. Writing the root itself, or over a
//     directory, is refused before anything is created.
//
// Errors are *PathError values naming the operation and the path as the
// caller gave it, never the file's content. On a confined FS a path that
// leaves the root through a symbolic link reads as absent (fs.ErrNotExist),
// exactly like a file that does not exist, so a reply never tells whether
// something exists outside the root; a path that is outside the root as
// written (an absolute path elsewhere, or "../x") fails with ErrOutside,
// which the caller could tell from the path alone.
package safefs
