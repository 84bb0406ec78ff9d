package sagemaker

import (
	"errors"
	"strings"
	"testing"
)

// TestServiceImageURI: the model monitor analyzer image is untagged and
// Clarify's is tagged with its version, as the SDK's image_uris.retrieve
// gives them; an unknown region or version says what is supported.
func TestServiceImageURI(t *testing.T) {
	for _, c := range []struct{ service, version, region, want string }{
		{ServiceModelMonitor, "", "us-east-1", "156813124566.dkr.ecr.us-east-1.amazonaws.com/sagemaker-model-monitor-analyzer"},
		{ServiceModelMonitor, "", "eu-west-1", "468650794304.dkr.ecr.eu-west-1.amazonaws.com/sagemaker-model-monitor-analyzer"},
		{ServiceModelMonitor, "", "cn-north-1", "453000072557.dkr.ecr.cn-north-1.amazonaws.com.cn/sagemaker-model-monitor-analyzer"},
		{ServiceClarify, "", "us-west-2", "306415355426.dkr.ecr.us-west-2.amazonaws.com/sagemaker-clarify-processing:1.0"},
		{ServiceClarify, "1.0", "us-east-1", "205585389593.dkr.ecr.us-east-1.amazonaws.com/sagemaker-clarify-processing:1.0"},
	} {
		got, err := ServiceImageURI(c.service, c.version, c.region)
		if err != nil || got != c.want {
			t.Errorf("%s %q %s: %q, %v; want %q", c.service, c.version, c.region, got, err, c.want)
		}
	}
	var ie *ImageError
	if _, err := ServiceImageURI(ServiceClarify, "2.0", "us-east-1"); !errors.As(err, &ie) || ie.Field != "version" || !strings.Contains(err.Error(), "1.0") {
		t.Errorf("unknown version: %v", err)
	}
	if _, err := ServiceImageURI(ServiceModelMonitor, "", "xx-nowhere-1"); !errors.As(err, &ie) || ie.Field != "region" {
		t.Errorf("unknown region: %v", err)
	}
	if _, err := ServiceImageURI("debugger", "", "us-east-1"); !errors.As(err, &ie) || ie.Field != "framework" {
		t.Errorf("unknown service: %v", err)
	}
}
