package safefs

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Kind names a kind of file; each kind has its own read size cap.
type Kind string

// The kinds of file Cursus reads.
const (
	// KindConfig is a pipeline config.json.
	KindConfig Kind = "config"
	// KindDAG is a DAG document (dag.serialize's format, pipeline catalog files).
	KindDAG Kind = "dag"
	// KindScript is a step script or another source file read whole.
	KindScript Kind = "script"
	// KindStep is a *.step.yaml step file of a workspace.
	KindStep Kind = "step"
	// KindDocument is a generated JSON document: a pipeline definition, an
	// execution document, a run's state, a report, an answer file.
	KindDocument Kind = "document"
	// KindData is a file handed on as it is (an upload, a local run's input);
	// it is streamed, never held in memory whole.
	KindData Kind = "data"
)

// Kinds lists every kind, sorted.
var Kinds = []Kind{KindConfig, KindDAG, KindData, KindDocument, KindScript, KindStep}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// DefaultLimits are the read size caps of each kind, in bytes. They are
// well above any real file of the kind and low enough that parsing the
// largest accepted file stays far below the memory budget of a call.
var DefaultLimits = Limits{
	KindConfig:   8 * mib,
	KindDAG:      8 * mib,
	KindScript:   1 * mib,
	KindStep:     1 * mib,
	KindDocument: 16 * mib,
	KindData:     4 * gib,
}

// EnvLimits is the environment variable that overrides read size caps for
// every caller: a comma-separated list of kind=size ("config=16MiB,script=2MiB").
const EnvLimits = "CURSUS_FILE_LIMITS"

// Limits maps a kind of file to its read size cap in bytes. A kind that is
// absent, or has a cap of 0 or less, uses DefaultLimits.
type Limits map[Kind]int64

// Of returns the cap of a kind: the map's, else the default, else the
// largest default (an unknown kind is never unbounded).
func (l Limits) Of(k Kind) int64 {
	if n, ok := l[k]; ok && n > 0 {
		return n
	}
	if n, ok := DefaultLimits[k]; ok {
		return n
	}
	return DefaultLimits[KindDocument]
}

// Merge returns the caps of l with those of over on top (over wins).
func (l Limits) Merge(over Limits) Limits {
	out := Limits{}
	for k, v := range l {
		out[k] = v
	}
	for k, v := range over {
		if v > 0 {
			out[k] = v
		}
	}
	return out
}

// String renders the caps as kind=size pairs, sorted by kind.
func (l Limits) String() string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + FormatSize(l[Kind(k)])
	}
	return strings.Join(parts, ",")
}

// ParseLimits reads a comma-separated list of kind=size pairs. A size is a
// number of bytes with an optional unit (KB, KiB, MB, MiB, GB, GiB; K, M, G
// are binary). An unknown kind or a size that is not a positive number is an
// error naming it.
func ParseLimits(s string) (Limits, error) {
	out := Limits{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("file limit %q: want kind=size", part)
		}
		kind := Kind(strings.TrimSpace(strings.ToLower(k)))
		if _, known := DefaultLimits[kind]; !known {
			return nil, fmt.Errorf("file limit %q: unknown kind %q (kinds: %s)", part, kind, kindList())
		}
		n, err := ParseSize(v)
		if err != nil {
			return nil, fmt.Errorf("file limit %q: %v", part, err)
		}
		out[kind] = n
	}
	return out, nil
}

// LimitsFromEnv reads CURSUS_FILE_LIMITS (empty: no overrides).
func LimitsFromEnv() (Limits, error) {
	v := os.Getenv(EnvLimits)
	if strings.TrimSpace(v) == "" {
		return Limits{}, nil
	}
	l, err := ParseLimits(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", EnvLimits, err)
	}
	return l, nil
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

var units = []struct {
	suffix string
	mult   int64
}{
	{"kib", kib}, {"mib", mib}, {"gib", gib},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"k", kib}, {"m", mib}, {"g", gib}, {"b", 1},
}

// ParseSize reads a positive byte count with an optional unit (see ParseLimits).
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q is not a positive number of bytes (units: KiB, MiB, GiB, KB, MB, GB)", strings.TrimSpace(s))
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q is too large", strings.TrimSpace(s))
	}
	return n * mult, nil
}

// FormatSize renders a byte count in the largest binary unit that divides
// it, else in bytes: 8388608 is "8MiB", 1500 is "1500B".
func FormatSize(n int64) string {
	switch {
	case n >= gib && n%gib == 0:
		return strconv.FormatInt(n/gib, 10) + "GiB"
	case n >= mib && n%mib == 0:
		return strconv.FormatInt(n/mib, 10) + "MiB"
	case n >= kib && n%kib == 0:
		return strconv.FormatInt(n/kib, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}
