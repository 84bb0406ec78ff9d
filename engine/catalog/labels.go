package catalog

// ReadsLabel reports whether the step's container requires the label
// column of its data: its LABEL_FIELD variable is required and set from
// config field label_name (a metrics or evaluation step).
func (s *Step) ReadsLabel() bool {
	for _, ev := range s.Contract.Env {
		if ev.Name == "LABEL_FIELD" && ev.Field == "label_name" && ev.Required {
			return true
		}
	}
	return false
}

// WritesLabelOnlyWhenSet reports whether the step scores data with a model
// (a model_artifacts input) and writes the label column only when config
// field label_name names it (its LABEL_FIELD is optional): a step after
// it that reads the label needs label_name set here too.
func (s *Step) WritesLabelOnlyWhenSet() bool {
	optional := false
	for _, ev := range s.Contract.Env {
		if ev.Name == "LABEL_FIELD" && ev.Field == "label_name" && !ev.Required {
			optional = true
		}
	}
	if !optional {
		return false
	}
	for _, ip := range s.Inputs {
		if ip.Type == DepModelArtifacts {
			return true
		}
	}
	return false
}
