package strategies

import (
	"testing"

	"github.com/cursus-go/cursus/engine/errkind"
)

// The library's errors say their kind and particulars, which the tool
// layer turns into codes and meta.details.
func TestErrorKinds(t *testing.T) {
	l := lib(t)
	_, err := l.Show("no-such-strategy", AxisStepAssembly)
	if errkind.Of(err) != errkind.NotFound {
		t.Errorf("not found: kind %q", errkind.Of(err))
	}
	if d := errkind.DetailsOf(err); d["name"] != "no-such-strategy" || d["axis"] != AxisStepAssembly || len(d["available"].([]string)) != 2 {
		t.Errorf("not found: details %v", d)
	}
	_, err = l.List("colour")
	if errkind.Of(err) != errkind.InvalidInput || len(errkind.DetailsOf(err)["axes"].([]string)) != len(Axes) {
		t.Errorf("axis: %q %v", errkind.Of(err), errkind.DetailsOf(err))
	}
	amb := &AmbiguousError{Name: "Training", Axes: []string{AxisSageMakerStepType, AxisStepAssembly}}
	if errkind.Of(amb) != errkind.InvalidInput || errkind.DetailsOf(amb)["name"] != "Training" {
		t.Errorf("ambiguous: %q %v", errkind.Of(amb), errkind.DetailsOf(amb))
	}
}
