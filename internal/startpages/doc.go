// Package startpages hands back to the kernel the pages of the program's
// executable (and of its shared libraries, in a cgo build) that its
// start-up touched, once the start is over.
//
// A Go program's start maps far more of its binary than it uses
// afterwards: every package's init runs (the AWS SDK's endpoint tables,
// the JSON schema libraries, ...), the runtime's itab setup reads about
// 1,700 type descriptors, and the kernel maps the 64 KiB around each page
// a fault touches. For `cursus mcp serve` that is about 17 MiB of file
// pages by the first tools/list, of which a compile later uses less than
// two thirds.
//
// Release unmaps those pages from the process (madvise MADV_DONTNEED on the
// read-only, never-written mappings of files: the executable's and the
// shared libraries'). The pages stay in the kernel's page cache, so the
// next access refaults them at the cost of a minor fault, without I/O, and
// the next start of the binary finds them there. What changes: the process's resident set counts only what it uses
// after its start, and the pages it does not use any more are no longer
// mapped, so the kernel can reclaim them like any unmapped cache page
// instead of as the mapped executable pages it protects. What does not
// change: the memory of the process's own (anonymous) pages, and the page
// cache the binary occupies while it is cached.
//
// Only mappings of a file that are private, readable, not writable, and
// hold no anonymous (copy-on-write) page are released: a page a debugger
// patched, or a read-only segment written at load time (the relocations
// of a shared library or of a position-independent build), is never
// dropped, and a page dropped reads the same bytes when it comes back. A
// traced process (a debugger attached) is left alone, and so is every
// other platform than Linux, where Release does nothing.
//
// One consequence: uprobes placed on the binary before Release (eBPF
// tracing of a running server) are lost on the refaulted pages; set
// CURSUS_KEEP_START_PAGES=1 to keep the pages mapped.
package startpages

// EnvKeep, set to 1 (or true), turns Release off.
const EnvKeep = "CURSUS_KEEP_START_PAGES"
