package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cursus-go/cursus/engine/catalog"
)

// bench100 builds a 100-config file and the 100 DAG nodes that use it (one
// in ten named in lower case, so the case-insensitive rule runs too).
func bench100(b *testing.B) (*Schema, []byte, []catalog.NodeName) {
	b.Helper()
	s := testSchema(b)
	var configs []*Config
	var dagNodes []catalog.NodeName
	for i := 0; i < 50; i++ {
		jt := fmt.Sprintf("split%02d", i)
		configs = append(configs,
			mustConfig(b, s, "CradleDataLoading", merged(cradleValues, map[string]any{"job_type": jt})),
			mustConfig(b, s, "TabularPreprocessing", map[string]any{"job_type": jt, "label_name": "y"}))
	}
	set, err := NewSet(configs...)
	if err != nil {
		b.Fatal(err)
	}
	for i, k := range set.Keys() {
		n := string(k)
		if i%10 == 0 {
			n = strings.ToLower(n)
		}
		dagNodes = append(dagNodes, catalog.NodeName(n))
	}
	data, err := Marshal(set)
	if err != nil {
		b.Fatal(err)
	}
	return s, data, dagNodes
}

func BenchmarkLoadAndResolve100(b *testing.B) {
	s, data, dagNodes := bench100(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		set, err := Unmarshal(s, data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := set.Resolve(dagNodes, ResolveOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolve100(b *testing.B) {
	s, data, dagNodes := bench100(b)
	set, err := Unmarshal(s, data)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := set.Resolve(dagNodes, ResolveOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal100(b *testing.B) {
	s, data, _ := bench100(b)
	set, err := Unmarshal(s, data)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(set); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildSchema is the cost of a schema for a new catalog (the first
// FromCatalog call for a workspace catalog; later calls hit the cache, see
// BenchmarkFromCatalogCached).
func BenchmarkBuildSchema(b *testing.B) {
	c, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildSchema(c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromCatalogCached is a FromCatalog call for a catalog whose
// schema is already built (every call after the first for a workspace).
func BenchmarkFromCatalogCached(b *testing.B) {
	c, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromCatalog(c); err != nil {
			b.Fatal(err)
		}
	}
}
