package compiler

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/sagemaker"
)

// MaxPipelineNameLength is the longest pipeline name the generator emits
// (one under the API's 256, the limit cursus (Python) keeps).
const MaxPipelineNameLength = 255

// GeneratePipelineName returns sanitize("<base>-<version>-pipeline"):
// ("alice-AtoZ-xgboost-NA", "1.3.1") gives
// "alice-AtoZ-xgboost-NA-1-3-1-pipeline".
func GeneratePipelineName(base, version string) string {
	return SanitizePipelineName(base + "-" + version + "-pipeline")
}

// SanitizePipelineName turns s into a legal pipeline name: "." and "_"
// become "-", characters outside [A-Za-z0-9-] are dropped, a "p" is
// prefixed when the result does not start with a letter or digit, runs of
// "-" collapse, the result is cut to 255 characters and trailing "-" are
// stripped. A non-empty input that sanitizes to nothing gives "pipeline".
func SanitizePipelineName(s string) string {
	if s == "" {
		return ""
	}
	b := make([]byte, 0, len(s)+1)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' || c == '_':
			b = append(b, '-')
		case c == '-' || isAlnum(c):
			b = append(b, c)
		}
	}
	if len(b) > 0 && !isAlnum(b[0]) {
		b = append([]byte{'p'}, b...)
	}
	// collapse runs of '-'
	out := b[:0]
	for i, c := range b {
		if c == '-' && i > 0 && b[i-1] == '-' {
			continue
		}
		out = append(out, c)
	}
	if len(out) > MaxPipelineNameLength {
		out = out[:MaxPipelineNameLength]
	}
	res := strings.TrimRight(string(out), "-")
	if res == "" {
		return "pipeline"
	}
	return res
}

// ValidatePipelineName returns nil when name is a legal pipeline name
// (1..255 characters, letters, digits and inner hyphens) and an
// *InvalidPipelineNameError saying why otherwise.
func ValidatePipelineName(name string) error {
	switch {
	case name == "":
		return &InvalidPipelineNameError{Name: name, Reason: "the name is empty"}
	case len(name) > MaxPipelineNameLength:
		return &InvalidPipelineNameError{Name: name, Reason: fmt.Sprintf("the name is %d characters long; the limit is %d", len(name), MaxPipelineNameLength)}
	case !sagemaker.HasNameShape(name):
		return &InvalidPipelineNameError{Name: name, Reason: "only letters, digits and inner hyphens are allowed, starting and ending with a letter or digit", Suggestion: SanitizePipelineName(name)}
	}
	return nil
}

// IsValidPipelineName reports whether ValidatePipelineName accepts name.
func IsValidPipelineName(name string) bool { return ValidatePipelineName(name) == nil }

// IsValidStepName reports whether name is a legal SageMaker step name
// (1..64 of letters, digits, "-" and "_").
func IsValidStepName(name catalog.SageMakerStepName) bool {
	return isNameToken(string(name), "-_")
}

// isNameToken reports whether s is 1 to 64 bytes, each an ASCII letter, a
// digit or one of extra: the names SageMaker takes for steps, parameters
// and channels. It is not a regular expression because ^[...]{1,64}$
// compiles to 64 copies of the class, about 27 KB kept alive per
// expression.
func isNameToken(s, extra string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(extra, c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// IsolatedPipelineName is the name of a single-node pipeline:
// "<target_node>-isolated" with "_" turned into "-", sanitized.
func IsolatedPipelineName(node string) string {
	return SanitizePipelineName(strings.ReplaceAll(node, "_", "-") + "-isolated")
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
