package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/cursus-go/cursus/engine/sagemaker"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/envelope"
	"github.com/cursus-go/cursus/registry"
)

const exampleModelPackageARN = "arn:aws:sagemaker:us-east-1:123456789012:model-package/atoz-xgboost-na/3"

// ModelPackageNamespace returns the model_package namespace: the SageMaker model registry.
func ModelPackageNamespace() registry.Namespace {
	return namespace("model_package", "The SageMaker model registry: the model packages a pipeline registered, with their evaluation metrics and approval status; approve or reject one.",
		registry.New("model_package.list", registry.Spec{
			Description: "A model package group's versions, newest first, with approval status and evaluation metrics; or the groups.",
			When:        "a pipeline registered a model",
			Examples: []string{
				`model_package.list {"group_name": "AtoZ-xgboost-NA", "approval_status": "PendingManualApproval", "max_results": 3}`,
				`model_package.list {"region": "us-east-1"}  # the groups`,
			},
			ListFirstExample: true,
			Tags:             []string{registry.PhaseProgrammer},
			Network:          true,
		}, modelPackageList),
		registry.New("model_package.approve", registry.Spec{
			Description: "Approves or rejects a model package (UpdateModelPackage's ModelApprovalStatus, with a description of the decision); approval is what deploys a model in most setups. Answers the status before and after, beside the evaluation report's metrics.",
			When:        "you have read a model package's metrics (model_package.list) and decided",
			Examples: []string{
				`model_package.approve {"model_package_arn": "` + exampleModelPackageARN + `", "description": "AUC 0.91 on the calibration set"}`,
				`model_package.approve {"model_package_arn": "` + exampleModelPackageARN + `", "status": "Rejected", "description": "AUC below 0.8"}`,
			},
			Tags:        []string{registry.PhaseProgrammer},
			Destructive: true,
			Network:     true,
		}, modelPackageApprove),
	)
}

type modelPackageListArgs struct {
	GroupName      string `json:"group_name,omitempty" jsonschema:"maxLength=170" jsonschema_description:"Without it: the groups."`
	ApprovalStatus string `json:"approval_status,omitempty" jsonschema:"enum=Approved,enum=Rejected,enum=PendingManualApproval"`
	NameContains   string `json:"name_contains,omitempty" jsonschema:"maxLength=170" jsonschema_description:"Groups whose name contains this."`
	MaxResults     int    `json:"max_results,omitempty" jsonschema:"minimum=1,maximum=20,default=5"`
	NextToken      string `json:"next_token,omitempty" jsonschema:"maxLength=8192" jsonschema_description:"The next_token of the previous page."`
	regionArg
}

// ModelPackageListData is the data of model_package.list: a group's packages, or the groups.
type ModelPackageListData struct {
	GroupName string                       `json:"group_name,omitempty"`
	Count     int                          `json:"count"`
	Packages  []smclient.ModelPackage      `json:"packages,omitempty"`
	Groups    []smclient.ModelPackageGroup `json:"groups,omitempty"`
	NextToken string                       `json:"next_token,omitempty"`
}

func modelPackageList(ctx context.Context, a modelPackageListArgs) (*envelope.Result[ModelPackageListData], error) {
	if a.GroupName != "" && (len(a.GroupName) > 63 || !sagemaker.HasNameShape(a.GroupName)) && !strings.HasPrefix(a.GroupName, "arn:") {
		return nil, envelope.InvalidInput("group_name %q is not a model package group name (letters, digits and inner hyphens, at most 63) or ARN", a.GroupName).WithDetails("field", "group_name")
	}
	region, err := resolveRegionArg("region", a.Region)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(a.GroupName, "arn:") {
		if region, err = regionOfARNArg("group_name", a.GroupName, region); err != nil {
			return nil, err
		}
	}
	aw, err := openAWS(ctx, region)
	if err != nil {
		return nil, err
	}
	max := a.MaxResults
	if max == 0 {
		max = 5
	}
	if a.GroupName == "" {
		groups, next, err := aw.c.ModelPackageGroups(ctx, a.NameContains, 4*max, a.NextToken)
		if err != nil {
			return nil, aw.fail(err)
		}
		r := done(aw, envelope.Success(ModelPackageListData{Count: len(groups), Groups: groups, NextToken: next}))
		if len(groups) > 0 {
			r = r.WithNextSteps(envelope.NextStep{Tool: "model_package.list", When: "you want a group's packages", Why: "versions with metrics and approval status",
				ArgsHint: map[string]any{"group_name": groups[0].Name, "region": aw.target.Region}})
		}
		return r, nil
	}
	pkgs, next, err := aw.c.ModelPackages(ctx, a.GroupName, a.ApprovalStatus, max, a.NextToken)
	if err != nil {
		return nil, aw.fail(err)
	}
	r := done(aw, envelope.Success(ModelPackageListData{GroupName: a.GroupName, Count: len(pkgs), Packages: pkgs, NextToken: next}))
	if next != "" {
		r = r.WithNextSteps(envelope.NextStep{Tool: "model_package.list", When: "you want older versions", Why: "the next page",
			ArgsHint: map[string]any{"group_name": a.GroupName, "next_token": next, "region": aw.target.Region}})
	}
	for _, p := range pkgs {
		if p.ApprovalStatus == smclient.ApprovalPending {
			r = r.WithNextSteps(envelope.NextStep{Tool: "model_package.approve", When: "its metrics are good enough", Why: "approves (or rejects) the pending version",
				ArgsHint: map[string]any{"model_package_arn": p.ARN, "status": smclient.ApprovalApproved, "description": metricsLine(p)}})
			break
		}
	}
	return r, nil
}

// metricsLine is a package's metrics in one line, for an approval's description.
func metricsLine(p smclient.ModelPackage) string {
	if len(p.Metrics) == 0 {
		return ""
	}
	var parts []string
	for _, k := range sortedKeys(p.Metrics) {
		parts = append(parts, fmt.Sprintf("%s %.4g", k, p.Metrics[k]))
		if len(parts) == 4 {
			break
		}
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

type modelPackageApproveArgs struct {
	ModelPackageARN string `json:"model_package_arn" jsonschema:"required,minLength=1,maxLength=2048" jsonschema_description:"ARN of the model package (model_package.list answers it): arn:aws:sagemaker:<region>:<account>:model-package/<group>/<version>."`
	Status          string `json:"status,omitempty" jsonschema:"enum=Approved,enum=Rejected,enum=PendingManualApproval,default=Approved" jsonschema_description:"The decision."`
	Description     string `json:"description,omitempty" jsonschema:"maxLength=1024" jsonschema_description:"Why: recorded as the package's ApprovalDescription (e.g. the metrics the decision rests on)."`
}

// ModelPackageApproveData is the data of model_package.approve: the package after the decision
// (with the metrics it rests on) and its status before.
type ModelPackageApproveData struct {
	PreviousStatus string                `json:"previous_status"`
	Package        smclient.ModelPackage `json:"package"`
}

func modelPackageApprove(ctx context.Context, a modelPackageApproveArgs) (*envelope.Result[ModelPackageApproveData], error) {
	if !strings.HasPrefix(a.ModelPackageARN, "arn:aws") || !strings.Contains(a.ModelPackageARN, ":model-package/") {
		return nil, envelope.InvalidInput("model_package_arn %q is not a model package ARN (arn:aws:sagemaker:<region>:<account>:model-package/<group>/<version>)", a.ModelPackageARN).
			WithDetails("field", "model_package_arn").WithRemedy("take the ARN model_package.list answers", "model_package.list")
	}
	status := a.Status
	if status == "" {
		status = smclient.ApprovalApproved
	}
	aw, err := openAWS(ctx, smclient.RegionOfARN(a.ModelPackageARN))
	if err != nil {
		return nil, err
	}
	p, before, err := aw.c.SetApproval(ctx, a.ModelPackageARN, status, a.Description)
	if err != nil {
		return nil, aw.fail(err)
	}
	r := done(aw, envelope.Success(ModelPackageApproveData{PreviousStatus: before, Package: *p}))
	if p.MetricsNote != "" {
		r = r.WithWarnings("the decision was made without the evaluation report's metrics: " + p.MetricsNote)
	}
	return r.WithNextSteps(envelope.NextStep{Tool: "model_package.list", When: "you want the group's other versions", Why: "their metrics and status",
		ArgsHint: map[string]any{"group_name": p.Group, "region": aw.target.Region}}), nil
}
