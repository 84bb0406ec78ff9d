package validation

import "sort"

// Severity grades an issue. CRITICAL and ERROR block; WARNING and INFO do not.
type Severity string

// Issue severities.
const (
	SeverityCritical Severity = "CRITICAL"
	SeverityError    Severity = "ERROR"
	SeverityWarning  Severity = "WARNING"
	SeverityInfo     Severity = "INFO"
)

// Blocking reports whether the severity fails a check.
func (s Severity) Blocking() bool { return s == SeverityCritical || s == SeverityError }

// Issue is one finding of a check.
type Issue struct {
	Severity       Severity       `json:"severity"`
	Category       string         `json:"category"`
	Message        string         `json:"message"`
	Details        map[string]any `json:"details,omitempty"`
	Recommendation string         `json:"recommendation,omitempty"`
}

// Issue categories.
const (
	CatUndeclaredContainerPath = "undeclared_container_path"
	CatMissingContainerPath    = "missing_container_path"
	CatUndeclaredInputPath     = "undeclared_input_path"
	CatUndeclaredOutputPath    = "undeclared_output_path"
	CatUndeclaredEnvVar        = "undeclared_env_var"
	CatMissingEnvVar           = "missing_env_var"
	CatUnusedEnvVar            = "unused_env_var"
	CatUndeclaredJobArg        = "undeclared_job_argument"
	CatMissingJobArg           = "missing_job_argument"
	CatPlatformPath            = "platform_path"
	CatScriptStructure         = "script_structure"
	CatPortPath                = "port_container_path"
	CatContractField           = "contract_field"
	CatDependencyResolution    = "dependency_resolution"
	CatDependencyCompatibility = "dependency_compatibility"
	CatMissingConfigField      = "missing_config_field"
	CatBuilder                 = "builder"
	CatBuild                   = "build"
)

// Blocking returns the blocking issues of a list.
func Blocking(issues []Issue) []Issue {
	var out []Issue
	for _, i := range issues {
		if i.Severity.Blocking() {
			out = append(out, i)
		}
	}
	return out
}

// HasBlocking reports whether any issue blocks.
func HasBlocking(issues []Issue) bool { return len(Blocking(issues)) > 0 }

// sortIssues orders issues by severity (most severe first), stably.
func sortIssues(issues []Issue) {
	rank := map[Severity]int{SeverityCritical: 0, SeverityError: 1, SeverityWarning: 2, SeverityInfo: 3}
	sort.SliceStable(issues, func(i, j int) bool { return rank[issues[i].Severity] < rank[issues[j].Severity] })
}

func nonNilIssues(in []Issue) []Issue {
	if in == nil {
		return []Issue{}
	}
	return in
}
