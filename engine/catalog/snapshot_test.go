package catalog

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"testing"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/safefs"
)

var update = flag.Bool("update", false, "rewrite snapshot.json from the embedded YAML files")

func embeddedFiles(t testing.TB) (sets, steps []rawFile) {
	t.Helper()
	sets, errs := readFiles(embedded, "fieldsets", ".yaml")
	steps, errs2 := readFiles(embedded, "steps", StepFileSuffix)
	if len(errs)+len(errs2) > 0 {
		t.Fatal(append(errs, errs2...))
	}
	return sets, steps
}

// TestSnapshotCurrent fails while snapshot.json was not made from the
// current YAML files; -update rewrites it (atomically).
func TestSnapshotCurrent(t *testing.T) {
	sets, steps := embeddedFiles(t)
	want, err := buildSnapshot(sets, steps)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := safefs.Trusted().WriteFile("snapshot.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("snapshot.json rewritten (%d bytes); rebuild to embed it", len(want))
		return
	}
	if !bytes.Equal(want, snapshotJSON) {
		t.Fatal("snapshot.json is stale (a step or field-set file changed); run: go test ./engine/catalog -run TestSnapshotCurrent -args -update")
	}
	if currentSnapshot(sets, steps) == nil {
		t.Fatal("the embedded snapshot is not used")
	}
}

// TestSnapshotMatchesYAML: the catalog built through the snapshot equals the
// one built from the YAML, value for value.
func TestSnapshotMatchesYAML(t *testing.T) {
	if *update {
		t.Skip("updating")
	}
	viaSnap, err := loadEmbeddedWith(true)
	if err != nil {
		t.Fatal(err)
	}
	viaYAML, err := loadEmbeddedWith(false)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(c *Catalog) []byte {
		type fs struct {
			Name string
			Set  *FieldSet
		}
		var all []any
		for _, s := range c.Steps() {
			all = append(all, s)
			for _, jt := range mapkeys.Sorted(s.Variants) {
				all = append(all, s.ForJobType(jt))
			}
		}
		for _, n := range c.FieldSetNames() {
			set, _ := c.FieldSetInfo(n)
			all = append(all, fs{n, set})
		}
		b, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := enc(viaSnap), enc(viaYAML)
	if !bytes.Equal(a, b) {
		t.Fatalf("snapshot and YAML catalogs differ (%d vs %d bytes)", len(a), len(b))
	}
	// Types of defaults survive (int stays int, float stays float).
	s := mustStep(t, viaSnap, "MissingValueImputation")
	if f, _ := s.Field("numerical_constant_value"); f.Default != 0 {
		t.Errorf("int default %T %v", f.Default, f.Default)
	}
	if f, _ := s.Field("categorical_unique_ratio_threshold"); f.Default != 0.1 {
		t.Errorf("float default %T %v", f.Default, f.Default)
	}
}

func TestTypedValues(t *testing.T) {
	for _, v := range []any{nil, true, 3, 0.0, 1e-05, 2.5, "x\"y", []any{1, 2.0, "a"}, map[string]any{"b": []any{}, "a": map[string]any{"c": false}}} {
		var b bytes.Buffer
		if err := writeTyped(&b, v); err != nil {
			t.Fatal(err)
		}
		got, err := readTyped(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		x, _ := json.Marshal(v)
		y, _ := json.Marshal(got)
		if string(x) != string(y) || fmt.Sprintf("%T", v) != fmt.Sprintf("%T", got) || !reflect.DeepEqual(v, got) {
			t.Errorf("%v (%T) -> %s -> %v (%T)", v, v, b.String(), got, got)
		}
	}
}
