package server_test

import (
	"debug/elf"
	"slices"
	"strings"
	"testing"
)

// TestBinaryKeepsOnlyCalledOperations: the cursus binary links only the
// SageMaker operations engine/sagemaker/smclient calls. The text/template
// package that urfave/cli's help links looks methods up by name, so the
// linker keeps every exported method of any type converted to an
// interface; were the *sagemaker.Client reachable from one (a paginator
// given the client, a struct holding it in a generic dictionary), all of
// SageMaker's ~400 operations would be kept: 18 MB more binary, about
// 3 MiB more resident pages per server.
func TestBinaryKeepsOnlyCalledOperations(t *testing.T) {
	t.Parallel()
	f, err := elf.Open(cursusBin(t))
	if err != nil {
		t.Skipf("not an ELF binary here: %v", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "github.com/aws/aws-sdk-go-v2/service/sagemaker.(*Client)."
	var kept []string
	for _, s := range syms {
		op, ok := strings.CutPrefix(s.Name, prefix)
		if ok && op != "" && op[0] >= 'A' && op[0] <= 'Z' && !strings.HasSuffix(op, "-fm") {
			kept = append(kept, op)
		}
	}
	slices.Sort(kept)
	kept = slices.Compact(kept)
	called := []string{ // smclient's api
		"AddTags", "CreatePipeline", "DeletePipeline", "DescribeModelPackage", "DescribePipeline",
		"DescribePipelineDefinitionForExecution", "DescribePipelineExecution", "DescribeProcessingJob",
		"DescribeTrainingJob", "DescribeTransformJob", "ListModelPackageGroups", "ListModelPackages",
		"ListPipelineExecutionSteps", "ListPipelineExecutions", "ListPipelineParametersForExecution",
		"ListPipelineVersions", "ListPipelines", "ListTags", "RetryPipelineExecution", "StartPipelineExecution",
		"StopPipelineExecution", "UpdateModelPackage", "UpdatePipeline",
	}
	var extra []string
	for _, op := range kept {
		if !slices.Contains(called, op) {
			extra = append(extra, op)
		}
	}
	if len(kept) == 0 {
		t.Fatal("no SageMaker operation in the binary's symbol table: was it built stripped?")
	}
	if len(extra) > 0 {
		t.Errorf("the binary keeps %d SageMaker operations nothing calls (%s...): a type converted to an interface reaches *sagemaker.Client; hold method values instead (smclient's api)",
			len(extra), strings.Join(extra[:min(5, len(extra))], ", "))
	}
}
