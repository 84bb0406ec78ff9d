package scripttest

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Table is a CSV or TSV file read back: its header and rows.
type Table struct {
	Header []string
	Rows   [][]string
}

// Col returns the values of the named column; the test fails when there
// is no such column.
func (tb Table) Col(t testing.TB, name string) []string {
	t.Helper()
	for i, h := range tb.Header {
		if h == name {
			out := make([]string, len(tb.Rows))
			for j, r := range tb.Rows {
				out[j] = r[i]
			}
			return out
		}
	}
	t.Fatalf("scripttest: no column %s in %v", name, tb.Header)
	return nil
}

// ReadCSV reads a CSV file (tab-separated when its name ends in .tsv)
// with a header line; the test fails when it cannot be read or is empty.
func ReadCSV(t testing.TB, path string) Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	if strings.HasSuffix(path, ".tsv") {
		r.Comma = '\t'
	}
	all, err := r.ReadAll()
	if err != nil {
		t.Fatalf("scripttest: %s: %v", path, err)
	}
	if len(all) == 0 {
		t.Fatalf("scripttest: %s is empty", path)
	}
	return Table{Header: all[0], Rows: all[1:]}
}

// MustFile fails the test unless p is a regular file with content.
func MustFile(t testing.TB, p string) {
	t.Helper()
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Size() == 0 {
		t.Fatalf("scripttest: missing or empty %s (%v)", p, err)
	}
}

// WriteFile writes body to p, creating its directory.
func WriteFile(t testing.TB, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// MainWithDir runs a test binary's tests with *dir set to a new temporary
// directory, for outputs several tests reuse (a script run costs seconds),
// removes it and exits with the tests' status. Call it from TestMain.
func MainWithDir(m *testing.M, dir *string) {
	d, err := os.MkdirTemp("", "scripttest-cache-")
	if err != nil {
		panic(err)
	}
	*dir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}
