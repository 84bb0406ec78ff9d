package sagemaker

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoSDKInTheCompilerLink checks the split this package exists for: neither package sagemaker
// nor the compiler links the AWS SDK (the client is package smclient). It asks `go list -deps`,
// which sees what a build links, not just the direct imports.
func TestNoSDKInTheCompilerLink(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go toolchain not on PATH: cannot list the compiler's dependencies")
	}
	for _, pkg := range []string{"github.com/cursus-go/cursus/engine/sagemaker", "github.com/cursus-go/cursus/engine/compiler"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed %d packages; expected its standard-library closure at least", pkg, len(deps))
		}
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/aws/") {
				t.Errorf("%s links %s; the AWS client belongs in engine/sagemaker/smclient", pkg, d)
			}
		}
	}
}
