package compiler

import (
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// KMS encryption.
//
// A config's kms_key_id (a key id, key ARN, alias or alias ARN) encrypts
// what its job writes: the output (ProcessingOutputConfig.KmsKeyId,
// OutputDataConfig.KmsKeyId, TransformOutput.KmsKeyId) and the job's ML
// storage volume (ClusterConfig / ResourceConfig / TransformResources
// VolumeKmsKeyId). A literal key becomes the default of the pipeline
// parameter KMS_ENCRYPTION_KEY_PARAM and the steps refer to the parameter,
// so an execution may pass another key; a pipeline has one such key, so two
// configs with different literal keys are refused. A "{{Parameters.X}}"
// value refers to a parameter of the configs' own. Without kms_key_id the
// step is not encrypted with a customer key and no KMS parameter is
// declared.
//
// The volume key is left out where SageMaker refuses one: instance types
// with local NVMe instance storage (families with a "d" after the
// generation such as m5d, c5d, g4dn, p3dn, p4d, and the GPU and accelerator
// families g5, g6, g6e, p5, inf1, inf2, trn1, trn1n, trn2, dl1), whose
// storage is hardware-encrypted. A processing step's skip_volume_kms
// decides by itself when set: true never sets the volume key, false always
// does.

// kmsKeyField is the config field holding a step's KMS key.
const kmsKeyField = "kms_key_id"

// kmsDefault returns the literal kms_key_id the DAG's configs set ("" when
// none does), or an error naming the field when two set different keys.
func (pl *plan) kmsDefault() (string, error) {
	byKey := map[string]catalog.NodeName{} // key -> first node setting it
	for _, n := range mapkeys.Sorted(pl.nodes) {
		np := pl.nodes[n]
		x, ok := np.Values.lookup(kmsKeyField)
		if !ok {
			continue
		}
		s, isStr := x.(string)
		if !isStr {
			return "", &StepBuildError{Node: n, StepName: np.Name, Field: kmsKeyField, Err: fmt.Errorf("want a string KMS key id, ARN or alias, got %s", jsonKind(x))}
		}
		if _, ref := paramRefName(s); ref || strings.TrimSpace(s) == "" {
			continue
		}
		if _, seen := byKey[s]; !seen {
			byKey[s] = n
		}
	}
	if len(byKey) > 1 {
		keys := mapkeys.Sorted(byKey)
		a, b := byKey[keys[0]], byKey[keys[1]]
		return "", &StepBuildError{Node: b, StepName: pl.nodes[b].Name, Field: kmsKeyField,
			Err: fmt.Errorf("nodes %s and %s set different KMS keys (%s, %s); a pipeline has one key, the default of parameter %s: set the same kms_key_id everywhere (configuration.shared)", a, b, keys[0], keys[1], ParamKMSKey)}
	}
	for k := range byKey {
		return k, nil
	}
	return "", nil
}

// kmsKey returns the KMS key expression of a step's outputs and volume:
// nil when its config sets no kms_key_id, the KMS parameter for a literal
// key, the referenced parameter for a "{{Parameters.X}}" one.
func (e *buildEnv) kmsKey(p *nodePlan) (any, error) {
	x, ok := p.Values.lookup(kmsKeyField)
	if !ok {
		return nil, nil
	}
	if v, isRef, err := e.textRef(kmsKeyField, x); isRef {
		return v, err
	}
	if s, _ := x.(string); strings.TrimSpace(s) == "" {
		return nil, nil
	}
	return Param(ParamKMSKey), nil
}

// volumeKMS returns the volume key of a step on instance type itype (a
// literal, or a parameter's default): key, or nil where SageMaker refuses a
// volume key (NVMe instance storage, see above) or skip_volume_kms says so.
func (e *buildEnv) volumeKMS(p *nodePlan, key any, itype string) (any, error) {
	if key == nil {
		return nil, nil
	}
	if p.Values.has("skip_volume_kms") {
		skip, err := p.Values.boolean("skip_volume_kms", false)
		if err != nil || skip {
			return nil, err
		}
		return key, nil
	}
	if hasInstanceStorage(itype) {
		return nil, nil
	}
	return key, nil
}

// nvmeFamilies are instance families with local NVMe storage whose name
// has no "d" after the generation digit.
var nvmeFamilies = map[string]bool{
	"g5": true, "g6": true, "g6e": true, "p5": true, "p5e": true, "p5en": true, "inf1": true, "inf2": true,
	"trn1": true, "trn1n": true, "trn2": true, "dl1": true,
}

// hasInstanceStorage reports whether an ml.<family>.<size> instance type
// has local NVMe instance storage (see nvmeFamilies and the "d" rule).
func hasInstanceStorage(itype string) bool {
	parts := strings.Split(itype, ".")
	if len(parts) != 3 || parts[0] != "ml" {
		return false
	}
	family := parts[1]
	if nvmeFamilies[family] || strings.HasPrefix(family, "p6") {
		return true
	}
	i := 0
	for i < len(family) && (family[i] < '0' || family[i] > '9') {
		i++
	}
	for i < len(family) && family[i] >= '0' && family[i] <= '9' {
		i++
	}
	return strings.Contains(family[i:], "d")
}
