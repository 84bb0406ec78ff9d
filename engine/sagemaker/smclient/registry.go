package smclient

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	sm "github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"

	"github.com/cursus-go/cursus/engine/errkind"
)

// The model approval statuses (ModelApprovalStatus).
const (
	ApprovalApproved = "Approved"
	ApprovalRejected = "Rejected"
	ApprovalPending  = "PendingManualApproval"
)

// ModelPackageGroup is one model package group of the registry.
type ModelPackageGroup struct {
	Name        string     `json:"group_name"`
	ARN         string     `json:"group_arn"`
	Description string     `json:"description,omitempty"`
	Status      string     `json:"status,omitempty"`
	Created     *time.Time `json:"created,omitempty"`
}

// ModelPackageGroups lists the registry's groups, newest first, whose name contains contains: one
// page of at most max (0 means 20) from token. It answers the page and the next token.
func (c *Client) ModelPackageGroups(ctx context.Context, contains string, max int, token string) ([]ModelPackageGroup, string, error) {
	if max <= 0 {
		max = 20
	}
	out, err := c.sm.listModelPackageGroups(ctx, &sm.ListModelPackageGroupsInput{NameContains: optString(contains),
		MaxResults: aws.Int32(int32(min(max, 100))), NextToken: optString(token),
		SortBy: smtypes.ModelPackageGroupSortByCreationTime, SortOrder: smtypes.SortOrderDescending})
	if err != nil {
		return nil, "", newAWSError("sagemaker:ListModelPackageGroups", contains, err)
	}
	list := make([]ModelPackageGroup, 0, len(out.ModelPackageGroupSummaryList))
	for _, g := range out.ModelPackageGroupSummaryList {
		list = append(list, ModelPackageGroup{Name: aws.ToString(g.ModelPackageGroupName), ARN: aws.ToString(g.ModelPackageGroupArn),
			Description: aws.ToString(g.ModelPackageGroupDescription), Status: string(g.ModelPackageGroupStatus), Created: g.CreationTime})
	}
	return list, aws.ToString(out.NextToken), nil
}

// ModelPackage is one version of a model package group, with its approval status and the metrics
// of its evaluation report.
type ModelPackage struct {
	ARN                 string     `json:"model_package_arn"`
	Group               string     `json:"group_name"`
	Version             int        `json:"version"`
	Status              string     `json:"status"`
	ApprovalStatus      string     `json:"approval_status"`
	ApprovalDescription string     `json:"approval_description,omitempty"`
	Description         string     `json:"description,omitempty"`
	Created             *time.Time `json:"created,omitempty"`
	Modified            *time.Time `json:"modified,omitempty"`
	// ModelDataURL and Image are the first inference container's.
	ModelDataURL string `json:"model_data_url,omitempty"`
	Image        string `json:"image,omitempty"`
	// MetricsURI is the evaluation report the package names (ModelMetrics: model quality
	// statistics first); Metrics are its numbers, flattened ("auc_roc", or
	// "binary_classification_metrics.auc" for SageMaker's {"value": ...} form), at most
	// MaxMetrics; MetricsNote says why there are none.
	MetricsURI  string             `json:"metrics_uri,omitempty"`
	Metrics     map[string]float64 `json:"metrics,omitempty"`
	MetricsNote string             `json:"metrics_note,omitempty"`
}

// MaxMetrics is the most metrics a package's answer carries; MaxReportBytes the largest report
// read.
const (
	MaxMetrics     = 40
	MaxReportBytes = 1 << 20
)

// ModelPackages lists a group's packages, newest first (only those of approval status when given),
// one page of at most max (0 means 10, at most 50) from token, each described (DescribeModelPackage)
// with its evaluation report's metrics read from S3. It answers the page and the next token.
func (c *Client) ModelPackages(ctx context.Context, group, status string, max int, token string) ([]ModelPackage, string, error) {
	if max <= 0 {
		max = 10
	}
	max = min(max, 50)
	in := &sm.ListModelPackagesInput{ModelPackageGroupName: aws.String(group), MaxResults: aws.Int32(int32(max)), NextToken: optString(token),
		SortBy: smtypes.ModelPackageSortByCreationTime, SortOrder: smtypes.SortOrderDescending}
	if status != "" {
		in.ModelApprovalStatus = smtypes.ModelApprovalStatus(status)
	}
	out, err := c.sm.listModelPackages(ctx, in)
	if err != nil {
		return nil, "", newAWSError("sagemaker:ListModelPackages", group, err)
	}
	list := make([]ModelPackage, 0, len(out.ModelPackageSummaryList))
	for _, s := range out.ModelPackageSummaryList {
		p, err := c.ModelPackage(ctx, aws.ToString(s.ModelPackageArn))
		if err != nil {
			return nil, "", err
		}
		list = append(list, *p)
	}
	return list, aws.ToString(out.NextToken), nil
}

// ModelPackage describes one package and reads its evaluation report's metrics. A missing
// package is an *AWSError with NotFound; an unreadable report is a MetricsNote.
func (c *Client) ModelPackage(ctx context.Context, arn string) (*ModelPackage, error) {
	d, err := c.sm.describeModelPackage(ctx, &sm.DescribeModelPackageInput{ModelPackageName: aws.String(arn)})
	if err != nil {
		e := newAWSError("sagemaker:DescribeModelPackage", arn, err)
		if strings.Contains(strings.ToLower(e.Message), "does not exist") {
			e.NotFound = true
		}
		return nil, e
	}
	p := &ModelPackage{ARN: aws.ToString(d.ModelPackageArn), Group: aws.ToString(d.ModelPackageGroupName),
		Version: int(aws.ToInt32(d.ModelPackageVersion)), Status: string(d.ModelPackageStatus), ApprovalStatus: string(d.ModelApprovalStatus),
		ApprovalDescription: aws.ToString(d.ApprovalDescription), Description: aws.ToString(d.ModelPackageDescription),
		Created: d.CreationTime, Modified: d.LastModifiedTime}
	if spec := d.InferenceSpecification; spec != nil && len(spec.Containers) > 0 {
		p.Image, p.ModelDataURL = aws.ToString(spec.Containers[0].Image), aws.ToString(spec.Containers[0].ModelDataUrl)
	}
	p.MetricsURI = metricsURI(d.ModelMetrics)
	if p.MetricsURI == "" {
		p.MetricsNote = "the package names no evaluation report (ModelMetrics)"
		return p, nil
	}
	p.Metrics, err = c.ReadMetrics(ctx, p.MetricsURI)
	if err != nil {
		p.MetricsNote = err.Error()
	}
	return p, nil
}

// metricsURI is the report a package's ModelMetrics names: model quality statistics first, then
// the other reports.
func metricsURI(m *smtypes.ModelMetrics) string {
	if m == nil {
		return ""
	}
	var sources []*smtypes.MetricsSource
	if q := m.ModelQuality; q != nil {
		sources = append(sources, q.Statistics, q.Constraints)
	}
	if q := m.ModelDataQuality; q != nil {
		sources = append(sources, q.Statistics, q.Constraints)
	}
	if b := m.Bias; b != nil {
		sources = append(sources, b.Report, b.PreTrainingReport, b.PostTrainingReport)
	}
	if e := m.Explainability; e != nil {
		sources = append(sources, e.Report)
	}
	for _, s := range sources {
		if s != nil && aws.ToString(s.S3Uri) != "" {
			return aws.ToString(s.S3Uri)
		}
	}
	return ""
}

// ReadMetrics reads an evaluation report (JSON, at most MaxReportBytes) from S3 and flattens its
// numbers: a number at any depth by its dotted path, a {"value": n} object by its own path, at
// most MaxMetrics of them (in path order).
func (c *Client) ReadMetrics(ctx context.Context, uri string) (map[string]float64, error) {
	c.clients()
	bucket, key, err := parseS3URI(uri)
	if err != nil {
		return nil, fmt.Errorf("evaluation report %s: %v", uri, err)
	}
	obj, err := c.s3.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("evaluation report %s could not be read: %v", uri, newAWSError("s3:GetObject", uri, err).Message)
	}
	defer obj.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(obj.Body, MaxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("evaluation report %s could not be read: %v", uri, err)
	}
	if len(raw) > MaxReportBytes {
		return nil, fmt.Errorf("evaluation report %s is over %d bytes", uri, MaxReportBytes)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("evaluation report %s is not JSON: %v", uri, err)
	}
	flat := map[string]float64{}
	flattenMetrics("", doc, flat)
	if len(flat) > MaxMetrics {
		keys := make([]string, 0, len(flat))
		for k := range flat {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys[MaxMetrics:] {
			delete(flat, k)
		}
	}
	return flat, nil
}

func flattenMetrics(path string, v any, out map[string]float64) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t := v.(type) {
	case float64:
		if path != "" && !math.IsNaN(t) && !math.IsInf(t, 0) {
			out[path] = t
		}
	case map[string]any:
		if x, ok := t["value"].(float64); ok && path != "" {
			out[path] = x
			return
		}
		for k, x := range t {
			flattenMetrics(join(k), x, out)
		}
	}
}

// ApprovalError reports an approval status UpdateModelPackage does not take.
type ApprovalError struct{ Status string }

// Error implements error.
func (e *ApprovalError) Error() string {
	return fmt.Sprintf("approval status %q: give %s, %s or %s", e.Status, ApprovalApproved, ApprovalRejected, ApprovalPending)
}

// Kind implements errkind.Kinded: InvalidInput.
func (e *ApprovalError) Kind() errkind.Kind { return errkind.InvalidInput }

// SetApproval sets a package's approval status (UpdateModelPackage) with a description of the
// decision, and answers the package as it then is (with its metrics) and its status before.
func (c *Client) SetApproval(ctx context.Context, arn, status, description string) (*ModelPackage, string, error) {
	if status != ApprovalApproved && status != ApprovalRejected && status != ApprovalPending {
		return nil, "", &ApprovalError{Status: status}
	}
	before, err := c.ModelPackage(ctx, arn)
	if err != nil {
		return nil, "", err
	}
	if _, err := c.sm.updateModelPackage(ctx, &sm.UpdateModelPackageInput{ModelPackageArn: aws.String(before.ARN),
		ModelApprovalStatus: smtypes.ModelApprovalStatus(status), ApprovalDescription: optString(description)}); err != nil {
		return nil, "", newAWSError("sagemaker:UpdateModelPackage", arn, err)
	}
	after, err := c.ModelPackage(ctx, before.ARN)
	if err != nil {
		return nil, "", err
	}
	return after, before.ApprovalStatus, nil
}
