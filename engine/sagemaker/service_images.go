package sagemaker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cursus-go/cursus/engine/internal/mapkeys"
)

// The images SageMaker's own check jobs run in: the model monitor analyzer
// (QualityCheck steps) and Clarify (ClarifyCheck steps). Their tables
// (images/model-monitor.json, images/clarify.json) are the SDK's, of another
// shape than the framework tables: one image per region, untagged for the
// model monitor (the SDK's retrieve gives the repository alone) and tagged
// with its version for Clarify.

// Names of the service images ServiceImageURI knows.
const (
	ServiceModelMonitor = "model-monitor"
	ServiceClarify      = "clarify"
)

// serviceImageTable is one version's registries and repository.
type serviceImageTable struct {
	Registries map[string]string `json:"registries"`
	Repository string            `json:"repository"`
}

var serviceImages = sync.OnceValues(func() (map[string]map[string]serviceImageTable, error) {
	out := map[string]map[string]serviceImageTable{}
	// model-monitor.json: {scope: [monitoring], versions: {"": {...}}}.
	var mm struct {
		Scope    []string                     `json:"scope"`
		Versions map[string]serviceImageTable `json:"versions"`
	}
	// clarify.json: {processing: {versions: {"1.0": {...}}}}.
	var cl struct {
		Processing struct {
			Versions map[string]serviceImageTable `json:"versions"`
		} `json:"processing"`
	}
	for _, f := range []struct {
		name, file string
		into       any
		versions   func() map[string]serviceImageTable
	}{
		{ServiceModelMonitor, "images/model-monitor.json", &mm, func() map[string]serviceImageTable { return mm.Versions }},
		{ServiceClarify, "images/clarify.json", &cl, func() map[string]serviceImageTable { return cl.Processing.Versions }},
	} {
		raw, err := imageFS.ReadFile(f.file)
		if err != nil {
			return nil, fmt.Errorf("sagemaker images: %w", err)
		}
		if err := decodeStrict(raw, f.into); err != nil {
			return nil, fmt.Errorf("sagemaker images: %s: %w", f.file, err)
		}
		vs := f.versions()
		if len(vs) == 0 {
			return nil, fmt.Errorf("sagemaker images: %s lists no version", f.file)
		}
		for v, t := range vs {
			if !repositoryRe().MatchString(t.Repository) {
				return nil, fmt.Errorf("sagemaker images: %s version %q: repository %q", f.file, v, t.Repository)
			}
			if err := checkRegistries(t.Registries); err != nil {
				return nil, fmt.Errorf("sagemaker images: %s version %q: %w", f.file, v, err)
			}
		}
		out[f.name] = vs
	}
	return out, nil
})

// ServiceImageURI returns the ECR URI of a SageMaker service image in a
// region, as the SDK's image_uris.retrieve does: service is
// ServiceModelMonitor (version "", the untagged analyzer image) or
// ServiceClarify (version "1.0"; "" takes it, the only one). A region or
// version the table lacks is an *ImageError listing the supported ones.
func ServiceImageURI(service, version, region string) (string, error) {
	tables, err := serviceImages()
	if err != nil {
		return "", err
	}
	vs, ok := tables[service]
	if !ok {
		return "", &ImageError{Field: "framework", Value: service, Supported: mapkeys.Sorted(tables)}
	}
	if _, ok := vs[version]; !ok && len(vs) == 1 && version == "" {
		for v := range vs {
			version = v
		}
	}
	t, ok := vs[version]
	if !ok {
		return "", &ImageError{Framework: service, Field: "version", Value: version, Supported: mapkeys.Sorted(vs), Reason: "no image of this version"}
	}
	account, ok := t.Registries[region]
	if !ok {
		return "", &ImageError{Framework: service, Field: "region", Value: region, Supported: mapkeys.Sorted(t.Registries),
			Reason: fmt.Sprintf("no %s image in this region", service)}
	}
	uri := account + ".dkr." + ecrHost(region) + "/" + t.Repository
	if version != "" {
		uri += ":" + version
	}
	return uri, nil
}

// decodeStrict decodes raw into v with unknown keys refused.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
