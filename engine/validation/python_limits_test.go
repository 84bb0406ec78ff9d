package validation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/internal/proc"
)

// A script whose analysis needs more than the analyzer's memory limit
// fails with an error naming the limit instead of taking the machine (the
// limit is lowered here so that a 3.6 MB script passes it).
func TestAnalyzerIsBounded(t *testing.T) {
	needPython(t)
	if !proc.MemoryLimitSupported {
		t.Skip("no memory limit on this system")
	}
	analyzerMemory = 200 << 20
	t.Cleanup(func() { analyzerMemory = AnalyzerMemory })
	var b strings.Builder
	b.WriteString("import os\n")
	for i := 0; i < 40000; i++ {
		b.WriteString("x = \"/opt/ml/processing/input/data/\" + os.environ.get(\"VARIABLE_NUMBER_" + strings.Repeat("9", 6) + "\", \"default\")\n")
	}
	f := filepath.Join(t.TempDir(), "big.py")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, err := AnalyzeScripts(context.Background(), f)
	var ee *proc.ExitError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "the memory limit is 200 MiB") {
		t.Fatalf("want the memory limit's error, got %v", err)
	}
	if time.Since(began) > AnalyzerTimeout+10*time.Second {
		t.Fatalf("took %s", time.Since(began))
	}
	t.Logf("%d-byte script: %v (%s)", b.Len(), err, time.Since(began).Round(time.Millisecond))
}
