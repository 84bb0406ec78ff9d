package sagemaker

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/internal/mapkeys"
	"github.com/cursus-go/cursus/internal/lazyre"
)

// Image scopes accepted by ImageURI.
const (
	// ScopeTraining selects the image a training job (or a framework processor) runs in.
	ScopeTraining = "training"
	// ScopeInference selects the serving image used by CreateModel / batch transform.
	ScopeInference = "inference"
)

// scopeInferenceGraviton is the table scope used for inference on Graviton (arm64) instances.
const scopeInferenceGraviton = "inference_graviton"

//go:embed images/*.json
var imageFS embed.FS

// imageTableFiles maps a canonical framework name to its embedded table.
var imageTableFiles = map[string]string{
	"xgboost": "images/xgboost.json",
	"sklearn": "images/sklearn.json",
	"pytorch": "images/pytorch.json",
}

// frameworkAliases maps accepted framework names onto the table that serves them. LightGBM has no
// SageMaker framework image of its own: the engine runs LightGBM (and multi-task LightGBM) training
// and processing as PyTorch-framework jobs whose script installs lightgbm, as cursus (Python) does.
var frameworkAliases = map[string]string{
	"lightgbm":     "pytorch",
	"lightgbmmt":   "pytorch",
	"scikit-learn": "sklearn",
}

// gravitonFamilies are the instance families the SDK treats as Graviton (arm64) targets.
var gravitonFamilies = []string{"m6g", "m6gd", "c6g", "c6gd", "c6gn", "c7g", "r6g", "r6gd"}

// armTags are the arm64 tags of the algorithm images on Graviton inference (the SDK hard-codes them).
var armTags = map[string]map[string]string{
	"xgboost": {"1.5-1": "1.5-1-arm64", "1.3-1": "1.3-1-arm64"},
	"sklearn": {"1.0-1": "1.0-1-arm64-cpu-py3"},
}

// p4dContainerVersions are the SDK's automatic container-version suffixes for p4d instances, keyed by
// "<framework>-<tag>".
var p4dContainerVersions = map[string]string{
	"pytorch-1.6-gpu-py36":   "cu110-ubuntu18.04-v3",
	"pytorch-1.6.0-gpu-py36": "cu110-ubuntu18.04",
	"pytorch-1.6-gpu-py3":    "cu110-ubuntu18.04-v3",
	"pytorch-1.6.0-gpu-py3":  "cu110-ubuntu18.04",
}

// imageScope is one scope ("training", "inference", ...) of a framework table.
type imageScope struct {
	Processors     []string                `json:"processors"`
	VersionAliases map[string]string       `json:"version_aliases"`
	Versions       map[string]imageVersion `json:"versions"`
}

// imageVersion is one framework version inside a scope.
type imageVersion struct {
	Processors       []string          `json:"processors"`
	PyVersions       []string          `json:"py_versions"`
	Registries       map[string]string `json:"registries"`
	Repository       string            `json:"repository"`
	ContainerVersion map[string]string `json:"container_version"`
}

var (
	accountRe    = lazyre.New(`^[0-9]{12}$`)
	regionRe     = lazyre.New(`^[a-z]{2}(-[a-z]+)+-[0-9]$`)
	pyVersionRe  = lazyre.New(`^py[0-9]+$`)
	repositoryRe = lazyre.New(`^[a-z0-9]+([._/-][a-z0-9]+)*$`)
)

// imageTableCache decodes and checks a framework's table on its first use
// (sync.OnceValues per framework of imageTableFiles): a pipeline that runs
// no PyTorch job never decodes the PyTorch table, two thirds of the
// embedded data. The map itself is never written after package
// initialisation.
var imageTableCache = func() map[string]func() (map[string]imageScope, error) {
	m := make(map[string]func() (map[string]imageScope, error), len(imageTableFiles))
	for fw, path := range imageTableFiles {
		m[fw] = sync.OnceValues(func() (map[string]imageScope, error) {
			raw, err := imageFS.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("sagemaker images: read %s: %w", path, err)
			}
			t, err := parseImageTable(raw)
			if err != nil {
				return nil, fmt.Errorf("sagemaker images: %s: %w", path, err)
			}
			return t, nil
		})
	}
	return m
}()

// loadImageTable returns framework fw's table (a canonical name, a key of
// imageTableFiles), decoded once.
func loadImageTable(fw string) (map[string]imageScope, error) {
	load, ok := imageTableCache[fw]
	if !ok {
		return nil, fmt.Errorf("sagemaker images: no table for %q", fw)
	}
	return load()
}

// registryPool holds one map per distinct set of registries (region to
// account) the decoded tables hold: the tables' 101 versions hold 9
// distinct maps of about 37 regions, which decoded apart kept about 270 KB
// alive for the life of the process. A map is checked when it enters the
// pool, so each distinct one is checked once. The maps are never written
// once pooled.
var registryPool struct {
	sync.Mutex
	maps map[string]map[string]string
}

// shareRegistries makes registries the pool's equal map, checking it first
// when the pool has none.
func shareRegistries(registries map[string]string) (map[string]string, error) {
	var key strings.Builder
	for _, region := range mapkeys.Sorted(registries) {
		key.WriteString(region + "=" + registries[region] + ";")
	}
	registryPool.Lock()
	defer registryPool.Unlock()
	if m, ok := registryPool.maps[key.String()]; ok {
		return m, nil
	}
	if err := checkRegistries(registries); err != nil {
		return nil, err
	}
	if registryPool.maps == nil {
		registryPool.maps = map[string]map[string]string{}
	}
	registryPool.maps[key.String()] = registries
	return registries, nil
}

// parseImageTable decodes one table (unknown keys are an error) and checks its entries.
func parseImageTable(raw []byte) (map[string]imageScope, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var t map[string]imageScope
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("no scopes")
	}
	for name, sc := range t {
		if err := checkProcessors(sc.Processors); err != nil {
			return nil, fmt.Errorf("scope %s: %w", name, err)
		}
		if len(sc.Versions) == 0 {
			return nil, fmt.Errorf("scope %s: no versions", name)
		}
		for alias, target := range sc.VersionAliases {
			if _, ok := sc.Versions[target]; !ok {
				return nil, fmt.Errorf("scope %s: alias %q points at unknown version %q", name, alias, target)
			}
		}
		for v, e := range sc.Versions {
			if err := checkImageVersion(sc, e); err != nil {
				return nil, fmt.Errorf("scope %s version %s: %w", name, v, err)
			}
			shared, err := shareRegistries(e.Registries)
			if err != nil {
				return nil, fmt.Errorf("scope %s version %s: %w", name, v, err)
			}
			e.Registries = shared
			sc.Versions[v] = e
		}
	}
	return t, nil
}

// checkRegistries checks a version's regions and accounts.
func checkRegistries(registries map[string]string) error {
	for region, account := range registries {
		if !regionRe().MatchString(region) {
			return fmt.Errorf("bad region %q", region)
		}
		if !accountRe().MatchString(account) {
			return fmt.Errorf("region %s: bad account %q", region, account)
		}
	}
	return nil
}

func checkProcessors(ps []string) error {
	for _, p := range ps {
		if p != "cpu" && p != "gpu" {
			return fmt.Errorf("unknown processor %q", p)
		}
	}
	return nil
}

func checkImageVersion(sc imageScope, e imageVersion) error {
	if !repositoryRe().MatchString(e.Repository) {
		return fmt.Errorf("bad repository %q", e.Repository)
	}
	if len(e.Registries) == 0 {
		return fmt.Errorf("no registries")
	}
	if err := checkProcessors(e.Processors); err != nil {
		return err
	}
	for _, py := range e.PyVersions {
		if !pyVersionRe().MatchString(py) {
			return fmt.Errorf("bad py_version %q", py)
		}
	}
	procs := sc.Processors
	if len(procs) == 0 {
		procs = e.Processors
	}
	for p, suffix := range e.ContainerVersion {
		if !slices.Contains(procs, p) || suffix == "" {
			return fmt.Errorf("container_version for unknown processor %q", p)
		}
	}
	return nil
}

// ImageError reports a framework image the embedded table cannot provide. Field names the argument
// at fault ("framework", "scope", "version", "py_version", "region" or "instance_type") and
// Supported lists the values the table accepts for it in that context (sorted), when there is such
// a list.
type ImageError struct {
	Framework string   // framework as given to ImageURI
	Field     string   // the argument at fault
	Value     string   // its value
	Supported []string // accepted values for Field, if enumerable
	Reason    string   // extra explanation, if any
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *ImageError) Kind() errkind.Kind { return errkind.InvalidInput }

// Details implements errkind.Detailer: the argument and its accepted
// values.
func (e *ImageError) Details() map[string]any {
	supported := e.Supported
	if supported == nil {
		supported = []string{}
	}
	return map[string]any{"field": e.Field, "supported": supported}
}

// Error implements error.
func (e *ImageError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sagemaker image: unsupported %s %q", e.Field, e.Value)
	if e.Framework != "" && e.Field != "framework" {
		fmt.Fprintf(&b, " for %s", e.Framework)
	}
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if len(e.Supported) > 0 {
		b.WriteString("; supported: " + strings.Join(e.Supported, ", "))
	}
	return b.String()
}

// ImageFrameworks lists the framework names ImageURI accepts, aliases included, sorted.
func ImageFrameworks() []string {
	out := make([]string, 0, len(imageTableFiles)+len(frameworkAliases))
	for fw := range imageTableFiles {
		out = append(out, fw)
	}
	for a := range frameworkAliases {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// ImageVersions lists the framework versions (aliases such as "2.0" or "latest" included) that
// ImageURI accepts for framework and scope ("training" or "inference"), in version order.
func ImageVersions(framework, scope string) ([]string, error) {
	fw, table, err := lookupFramework(framework)
	if err != nil {
		return nil, err
	}
	sc, err := lookupScope(fw, table, scope)
	if err != nil {
		return nil, err
	}
	return scopeVersions(sc), nil
}

// ImageURI returns the ECR URI of the SageMaker-managed container image for framework ("xgboost",
// "sklearn", "pytorch"; "lightgbm" and "lightgbmmt" resolve to the PyTorch images, see the package
// doc), version (a table version or alias, e.g. "1.7-1", "1.2-1", "2.1.0", "2.1"), region,
// pyVersion (may be empty when the version has exactly one, or none), instanceType ("ml.m5.xlarge";
// it chooses the cpu or gpu PyTorch image and may be empty only when the image does not depend on
// it) and scope ("training" or "inference"). It follows sagemaker.image_uris.retrieve of the
// Python SDK. A request the table cannot answer returns an *ImageError listing what is supported.
func ImageURI(framework, version, region, pyVersion, instanceType, scope string) (string, error) {
	fw, table, err := lookupFramework(framework)
	if err != nil {
		return "", err
	}
	scope = strings.TrimSpace(scope)
	if _, err := lookupScope(fw, table, scope); err != nil {
		return "", err
	}
	instanceType = strings.TrimSpace(instanceType)
	family, err := instanceFamily(instanceType)
	if err != nil {
		return "", &ImageError{Framework: fw, Field: "instance_type", Value: instanceType, Reason: err.Error()}
	}
	graviton := slices.Contains(gravitonFamilies, family)
	tableScope := scope
	if graviton {
		if scope != ScopeInference {
			return "", &ImageError{Framework: fw, Field: "instance_type", Value: instanceType,
				Reason: "Graviton (arm64) instances have " + fw + " images for inference only; use an x86 instance type for " + scope}
		}
		tableScope = scopeInferenceGraviton
	}
	sc, ok := table[tableScope]
	if !ok {
		return "", &ImageError{Framework: fw, Field: "instance_type", Value: instanceType,
			Reason: "no " + tableScope + " images in the table"}
	}

	version = strings.TrimSpace(version)
	key := version
	if target, ok := sc.VersionAliases[version]; ok {
		key = target
	}
	ver, ok := sc.Versions[key]
	if version == "" || !ok {
		return "", &ImageError{Framework: fw, Field: "version", Value: version, Supported: scopeVersions(sc),
			Reason: "no " + tableScope + " image for this version"}
	}

	py, err := choosePyVersion(fw, strings.TrimSpace(pyVersion), ver)
	if err != nil {
		return "", err
	}

	region = strings.TrimSpace(region)
	account, ok := ver.Registries[region]
	if !ok {
		return "", &ImageError{Framework: fw, Field: "region", Value: region, Supported: mapkeys.Sorted(ver.Registries),
			Reason: fmt.Sprintf("%s %s has no %s image in this region", fw, version, tableScope)}
	}

	processors := sc.Processors
	if len(processors) == 0 {
		processors = ver.Processors
	}
	processor, err := chooseProcessor(fw, instanceType, family, processors)
	if err != nil {
		return "", err
	}

	if fw == "pytorch" && family == "p2" && compareVersions(version, "1.13") >= 0 {
		return "", &ImageError{Framework: fw, Field: "instance_type", Value: instanceType,
			Reason: "P2 instances are not supported from PyTorch 1.13 on"}
	}

	containerVersion := ""
	if ver.ContainerVersion != nil {
		containerVersion = ver.ContainerVersion[processor]
	}
	if ver.Repository == fw+"-inference-graviton" {
		containerVersion += "-sagemaker"
	}

	var tag string
	if graviton && (fw == "xgboost" || fw == "sklearn") {
		t, ok := armTags[fw][version]
		if !ok {
			return "", &ImageError{Framework: fw, Field: "version", Value: version, Supported: mapkeys.Sorted(armTags[fw]),
				Reason: "no arm64 tag known for this version on Graviton"}
		}
		tag = t
	} else {
		tag = joinNonEmpty("-", version, processor, py, containerVersion)
		if family == "p4d" {
			if cv, ok := p4dContainerVersions[fw+"-"+tag]; ok {
				tag += "-" + cv
			}
		}
	}
	return account + ".dkr." + ecrHost(region) + "/" + ver.Repository + ":" + tag, nil
}

// ServingCodeInModel reports whether the serving image of a framework
// version loads inference code only from the model archive's code/
// folder (/opt/ml/model/code) and never from an S3
// SAGEMAKER_SUBMIT_DIRECTORY: the PyTorch images from 1.2 on (the
// SageMaker PyTorch inference toolkit over TorchServe, or over the
// multi-model server before it), which the SageMaker SDK's PyTorchModel
// repacks a model for. LightGBM models, served on the PyTorch images,
// count as PyTorch. A version that does not parse counts as a current one.
func ServingCodeInModel(framework, version string) bool {
	fw := strings.ToLower(strings.TrimSpace(framework))
	if target, ok := frameworkAliases[fw]; ok {
		fw = target
	}
	if fw != "pytorch" {
		return false
	}
	v := strings.TrimSpace(version)
	return v == "" || v == "latest" || compareVersions(v, "1.2") >= 0
}

// lookupFramework canonicalises framework (case, aliases) and returns its
// table, loading it on first use.
func lookupFramework(framework string) (string, map[string]imageScope, error) {
	fw := strings.ToLower(strings.TrimSpace(framework))
	if target, ok := frameworkAliases[fw]; ok {
		fw = target
	}
	if _, ok := imageTableFiles[fw]; !ok {
		return "", nil, &ImageError{Field: "framework", Value: framework, Supported: ImageFrameworks()}
	}
	table, err := loadImageTable(fw)
	if err != nil {
		return "", nil, err
	}
	return fw, table, nil
}

func lookupScope(fw string, table map[string]imageScope, scope string) (imageScope, error) {
	if scope != ScopeTraining && scope != ScopeInference {
		return imageScope{}, &ImageError{Framework: fw, Field: "scope", Value: scope, Supported: []string{ScopeInference, ScopeTraining}}
	}
	sc, ok := table[scope]
	if !ok {
		return imageScope{}, &ImageError{Framework: fw, Field: "scope", Value: scope, Reason: "no " + scope + " images in the table"}
	}
	return sc, nil
}

func scopeVersions(sc imageScope) []string {
	out := make([]string, 0, len(sc.Versions)+len(sc.VersionAliases))
	for v := range sc.Versions {
		out = append(out, v)
	}
	for a := range sc.VersionAliases {
		if _, dup := sc.Versions[a]; !dup {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if c := compareVersions(out[i], out[j]); c != 0 {
			return c < 0
		}
		return out[i] < out[j]
	})
	return out
}

func choosePyVersion(fw, py string, ver imageVersion) (string, error) {
	switch {
	case len(ver.PyVersions) == 0:
		return "", nil // the tag carries no Python version; a given one is ignored, as the SDK does
	case py == "" && len(ver.PyVersions) == 1:
		return ver.PyVersions[0], nil
	case slices.Contains(ver.PyVersions, py):
		return py, nil
	}
	return "", &ImageError{Framework: fw, Field: "py_version", Value: py, Supported: slices.Sorted(slices.Values(ver.PyVersions))}
}

// instanceFamily returns the family of "ml.<family>.<size>" ("" for an empty instance type).
func instanceFamily(instanceType string) (string, error) {
	if instanceType == "" {
		return "", nil
	}
	parts := strings.Split(instanceType, ".")
	if len(parts) != 3 || parts[0] != "ml" || parts[1] == "" || parts[2] == "" {
		return "", fmt.Errorf("want ml.<family>.<size>, e.g. ml.m5.xlarge")
	}
	return parts[1], nil
}

func chooseProcessor(fw, instanceType, family string, available []string) (string, error) {
	if len(available) == 0 {
		return "", nil // one image for every instance type (e.g. XGBoost 1.2-1 and later)
	}
	if instanceType == "" {
		if len(available) == 1 {
			return available[0], nil
		}
		return "", &ImageError{Framework: fw, Field: "instance_type", Value: "",
			Reason: "an instance type is needed to choose between the " + strings.Join(available, " and ") + " images"}
	}
	var p string
	switch {
	case slices.Contains(available, family):
		p = family
	case strings.HasPrefix(family, "inf"):
		p = "inf"
	case strings.HasPrefix(family, "trn"):
		p = "trn"
	case family[0] == 'g' || family[0] == 'p':
		p = "gpu"
	default:
		p = "cpu"
	}
	if !slices.Contains(available, p) {
		return "", &ImageError{Framework: fw, Field: "instance_type", Value: instanceType, Supported: available,
			Reason: "needs a " + p + " image, which this framework version does not have (supported processors listed)"}
	}
	return p, nil
}

// ecrHost is the ECR registry host of region, with its partition's DNS suffix.
func ecrHost(region string) string {
	suffix := "amazonaws.com"
	switch {
	case strings.HasPrefix(region, "cn-"):
		suffix = "amazonaws.com.cn"
	case strings.HasPrefix(region, "us-isob-"):
		suffix = "sc2s.sgov.gov"
	case strings.HasPrefix(region, "us-isof-"):
		suffix = "csp.hci.ic.gov"
	case strings.HasPrefix(region, "us-iso-"):
		suffix = "c2s.ic.gov"
	case strings.HasPrefix(region, "eu-isoe-"):
		suffix = "cloud.adc-e.uk"
	}
	return "ecr." + region + "." + suffix
}

// compareVersions orders versions such as "0.90-1", "1.7-1", "1.10.2", "2.0" numerically part by
// part (parts split on '.' and '-'); non-numeric parts compare as strings and sort after numbers.
func compareVersions(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' })
	}
	pa, pb := split(a), split(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil:
			if na != nb {
				if na < nb {
					return -1
				}
				return 1
			}
		case ea == nil:
			return -1
		case eb == nil:
			return 1
		default:
			if c := strings.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
		}
	}
	switch {
	case len(pa) < len(pb):
		return -1
	case len(pa) > len(pb):
		return 1
	}
	return 0
}

func joinNonEmpty(sep string, parts ...string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
