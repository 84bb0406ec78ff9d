package deps

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSequenceRatioMatchesDifflib(t *testing.T) {
	// Figures from Python's difflib.SequenceMatcher(None, a, b).ratio().
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"preprocess_calibration", "tabularpreprocessing", 0.5714285714285714},
		{"xgboostmodeleval_calibration", "modelcalibration", 0.7272727272727273},
		{"train_xgb", "xgboosttraining", 0.5},
		{"abc", "abc", 1},
		{"", "x", 0},
		{strings.Repeat("a", 250) + "b", strings.Repeat("a", 300), 0.9074410163339383},
	} {
		if got := SequenceRatio(tc.a, tc.b); got != tc.want {
			t.Errorf("SequenceRatio(%.20q, %.20q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestASCIIPathMatchesIndexedPath checks the allocation-free path for short
// ASCII strings against the general (difflib-indexed) one.
func TestASCIIPathMatchesIndexedPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alpha := "aab_c d"
	for n := 0; n < 3000; n++ {
		mk := func(l int) string {
			b := make([]byte, l)
			for i := range b {
				b[i] = alpha[rng.IntN(len(alpha))]
			}
			return string(b)
		}
		a, b := mk(rng.IntN(80)), mk(rng.IntN(199))
		fast := asciiRatio(a, b)
		ra, rb := []rune(a), []rune(b)
		slow := 1.0
		if len(ra)+len(rb) > 0 {
			slow = 2.0 * float64(newMatcher(ra, rb).matches()) / float64(len(ra)+len(rb))
		}
		if fast != slow {
			t.Fatalf("ratio(%q, %q): ascii %v, indexed %v", a, b, fast, slow)
		}
	}
}
