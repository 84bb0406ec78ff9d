package validation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cursus-go/cursus/internal/proc"
)

// The analyzer runs under a memory limit: a script whose analysis needs
// more comes back as an analysis that failed, quickly, instead of taking
// the machine (the limit is lowered here so that the test is quick; the
// script is handed over as embedded code, since a file that big is
// refused before analysis by the script size cap of the file-access
// layer).
func TestAnalyzerIsBounded(t *testing.T) {
	needPython(t)
	if !proc.MemoryLimitSupported {
		t.Skip("no memory limit on this system")
	}
	var b strings.Builder
	b.WriteString("x = [")
	for i := 0; i < 300000; i++ {
		b.WriteString("\"/opt/ml/p\", ")
	}
	b.WriteString("]\n")
	script := embeddedScripts{"big.py": []byte(b.String())}

	analyzerMemory = 100 << 20
	t.Cleanup(func() { analyzerMemory = AnalyzerMemory })
	out, err := analyzeScripts(context.Background(), script, "big.py")
	if err != nil || len(out) != 1 || out[0].OK {
		t.Fatalf("under a 100 MiB limit the analysis of a %d-byte script fails: %v %+v", b.Len(), err, out)
	}
	small := embeddedScripts{"small.py": []byte("x = [\"/opt/ml/p\"]\n")}
	if out, err := analyzeScripts(context.Background(), small, "small.py"); err != nil || !out[0].OK {
		t.Fatalf("a small script passes under the same limit: %v %+v", err, out)
	}
}

// The analyzer runs under a timeout: an analysis that takes longer is
// killed (with its process group) and reported as a timeout, naming the
// limit (lowered here so that the test is quick).
func TestAnalyzerTimesOut(t *testing.T) {
	needPython(t)
	var b strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&b, "x%d = os.environ.get(\"V%d\", \"/opt/ml/processing/input/%d\")\n", i, i, i)
	}
	script := embeddedScripts{"slow.py": []byte(b.String())}
	analyzerTimeout = 100 * time.Millisecond
	t.Cleanup(func() { analyzerTimeout = AnalyzerTimeout })
	_, err := analyzeScripts(context.Background(), script, "slow.py")
	if !errors.Is(err, proc.ErrTimeout) || !strings.Contains(err.Error(), "100ms") {
		t.Fatalf("an analysis over the timeout: %v, want a timeout naming 100ms", err)
	}
}
