package tools

import (
	"errors"

	"github.com/cursus-go/cursus/engine/author"
	"github.com/cursus-go/cursus/engine/catalog"
	"github.com/cursus-go/cursus/engine/compiler"
	"github.com/cursus-go/cursus/engine/config"
	"github.com/cursus-go/cursus/engine/dag"
	"github.com/cursus-go/cursus/engine/errkind"
	"github.com/cursus-go/cursus/engine/execdoc"
	"github.com/cursus-go/cursus/engine/localrun"
	"github.com/cursus-go/cursus/engine/pipelines"
	"github.com/cursus-go/cursus/engine/project"
	"github.com/cursus-go/cursus/engine/sagemaker/smclient"
	"github.com/cursus-go/cursus/engine/strategies"
	"github.com/cursus-go/cursus/engine/validation"
	"github.com/cursus-go/cursus/envelope"
)

// kindCodes is the one table from the kinds engine errors carry
// (engine/errkind) to the envelope codes of the tool contract.
var kindCodes = map[errkind.Kind]envelope.Code{
	errkind.InvalidInput:       envelope.CodeInvalidInput,
	errkind.NotFound:           envelope.CodeNotFound,
	errkind.AlreadyExists:      envelope.CodeAlreadyExists,
	errkind.Unsupported:        envelope.CodeUnsupported,
	errkind.Cancelled:          envelope.CodeCancelled,
	errkind.TooLarge:           envelope.CodeTooLarge,
	errkind.ConfigInvalid:      envelope.CodeConfigInvalid,
	errkind.NotConstructible:   envelope.CodeNotConstructible,
	errkind.NotDeployable:      envelope.CodeNotDeployable,
	errkind.ScriptAnalysis:     envelope.CodeScriptAnalysisError,
	errkind.ScriptCheck:        envelope.CodeScriptCheckFailed,
	errkind.RunFailed:          envelope.CodeRunFailed,
	errkind.AWS:                envelope.CodeAWSError,
	errkind.UpsertFailed:       envelope.CodeUpsertFailed,
	errkind.UpsertPartial:      envelope.CodeUpsertPartial,
	errkind.ValidationFailed:   envelope.CodeValidationFailed,
	errkind.WorkflowStopped:    envelope.CodeWorkflowStopped,
	errkind.SandboxUnavailable: envelope.CodeSandboxUnavailable,
}

// remedy is the way out of one engine error type: what to do and the
// tools that help.
type remedy struct {
	match func(error) bool
	fix   string
	tools []string
}

// remedyFor is the remedy of the engine errors of type E (errors.As).
func remedyFor[E error](fix string, tools ...string) remedy {
	return remedy{match: func(err error) bool { var e E; return errors.As(err, &e) }, fix: fix, tools: tools}
}

// remedyWhere is the remedy of the engine errors of type E that pred
// holds for.
func remedyWhere[E error](pred func(E) bool, fix string, tools ...string) remedy {
	return remedy{match: func(err error) bool { var e E; return errors.As(err, &e) && pred(e) }, fix: fix, tools: tools}
}

// remedyIs is the remedy of the errors that wrap target (errors.Is).
func remedyIs(target error, fix string, tools ...string) remedy {
	return remedy{match: func(err error) bool { return errors.Is(err, target) }, fix: fix, tools: tools}
}

// remedies are the remedies by engine error type, the first match wins.
// An error type whose failure an agent can recover from gets one here.
var remedies = []remedy{
	// The compiler's and the deployment's errors first: they wrap the
	// config's, and their remedy is about the compile.
	remedyWhere(func(e *compiler.FileError) bool { return e.Missing },
		"create the file or fix the path (nothing was uploaded or created); compile.definition lists every code file in upload_manifest", "compile.definition"),
	remedyFor[*compiler.CycleError]("remove an edge of the cycle", "dag.validate_integrity", "dag.render"),
	remedyWhere(func(e *compiler.InvalidDAGError) bool { var bc *dag.BranchConflictError; return errors.As(e, &bc) },
		dag.BranchConflictFix, "dag.render"),
	remedyFor[*compiler.InvalidDAGError]("declare the nodes or fix the misspelled edge endpoints", "dag.validate_integrity"),
	remedyFor[*compiler.MissingConfigError]("add a config for each node (its key is the node name) or rename the nodes to config keys", "compile.preview", "config.requirements", "config.template"),
	remedyFor[*compiler.UnboundInputsError]("add an edge from a step that produces each input, or set the config field the input can come from", "validate.deps_resolve", "steps.io", "compile.validate"),
	remedyFor[*compiler.StepBuildError]("fix the config field named in the error", "compile.validate", "catalog.config_fields"),
	remedyFor[*compiler.UnknownStepError]("use a step type the catalog has", "catalog.search", "catalog.list_steps"),
	remedyFor[*compiler.InvalidPipelineNameError]("use a legal name: letters, digits and inner hyphens", "compile.name"),
	remedyFor[*compiler.NodeNotFoundError]("target_node must be an exact config key (and a DAG node when a DAG is given)", "config.load"),
	remedyFor[*compiler.ManualInputError]("name inputs by their logical names and give s3://bucket/key URIs", "steps.io"),
	remedyFor[*compiler.ParameterError]("declare parameters as [{name, type (String|Integer|Float|Boolean), default_value}]"),
	remedyFor[*smclient.UpsertError]("check AWS credentials, region, the role and the bucket; the AWS error code says which", "compile.definition"),
	remedyFor[*smclient.InputError]("fix the named field: nothing was uploaded or created", "compile.definition"),
	remedyFor[*config.ResolutionError]("add a config for each node (its key is the node name)", "config.template", "compile.preview"),
	remedyFor[*config.DuplicateStepNameError]("give the colliding configs different job types", "compile.preview"),
	remedyFor[*author.UnknownVerbError]("use one of the valid SageMaker step types (meta.details.valid)", "strategies.list"),
	remedyFor[*validation.ScriptAnalysisError]("fix the script so python3 can parse it (python3 -m py_compile <script>)", "steps.io"),
	remedyFor[*validation.AnalyzerStoppedError]("the analyzer parses one script within these limits; split or shorten the script", "steps.io"),
	remedyIs(localrun.ErrSandboxUnavailable, localrun.SandboxRemedy, "validate.info"),
	remedyFor[*localrun.MissingModulesError]("install the modules meta.details.missing_modules names into that interpreter, or pass python naming one that has them", "execution.run_local", "validate.info"),
	remedyIs(validation.ErrNoPython, "install python3, or name an interpreter (execution.run_local's python argument, or "+validation.EnvPython+"); validate.info shows what was found", "validate.info", "execution.run_local"),
	remedyFor[*catalog.NotFoundError](unknownStepFix, "catalog.search", "catalog.list_steps"),
	// A catalog.LoadErrors unwraps to its *catalog.FileError problems.
	remedyFor[*catalog.FileError]("fix the named file and field (the step file format is documented in the engine/catalog package doc), or drop the directory from workspace_dirs", "validate.step_interface", "author.rules"),
	remedyFor[*config.ValidationError]("fix every field listed in meta.details.errors (path, message, allowed values) and call again; config.template lists every field with its default", "config.template", "config.field_info"),
	remedyFor[*config.UnknownClassError]("use config classes the catalog knows (config.field_info lists a class's fields)", "config.field_info", "catalog.list_steps"),
	remedyFor[*config.FormatError]("the file must be a config.json in the shared/specific/metadata format; config.template shows one", "config.template"),
	remedyFor[*execdoc.InvalidDocumentError]("make the document meta.details.argument names an object with a PIPELINE_STEP_CONFIGS object of step entries", "execdoc.validate", "execdoc.template"),
	remedyFor[*project.ExistsError]("choose another name or target_dir, or call project.init again with overwrite: true", "project.init"),
	remedyFor[*strategies.NotFoundError]("pick a strategy from strategies.list (names in meta.details.available)", "strategies.list", "strategies.list_axes"),
	remedyFor[*strategies.AmbiguousError]("pass axis to choose one", "strategies.list_axes"),
	remedyFor[*strategies.AxisError]("use one of meta.details.axes", "strategies.list_axes"),
	remedyFor[*smclient.ParameterError]("use only the parameters meta.details.declared lists, with values of their type", "compile.definition"),
	remedyWhere(func(e *smclient.AWSError) bool { return e.NotFound },
		"check the name or ARN: execution.list lists a pipeline's executions; compile.dag with upsert deploys a pipeline", "execution.list", "compile.dag"),
	remedyFor[*smclient.AWSError]("check AWS credentials, region and the caller's SageMaker permissions; the AWS error code says which"),
	remedyFor[*localrun.DefinitionError]("check the definition", "compile.definition", "compile.with_report"),
	remedyFor[*pipelines.NotFoundError]("use an id from pipeline_catalog.list (or ask pipeline_catalog.recommend)", "pipeline_catalog.list", "pipeline_catalog.recommend"),
}

// toolError maps an error a handler got from the engine onto the tool
// contract, so handlers just return toolError(err):
//
//   - nil stays nil and a *envelope.ToolError passes as it is;
//   - an error with a kind (errkind.Of: a Kind method in its chain, a
//     cancelled context, fs.ErrNotExist) becomes a *envelope.ToolError
//     with the kind's code (kindCodes), the error's message, its details
//     (errkind.Detailer) and the remedy of its type (remedies);
//   - any other error is returned as it is: the registry answers
//     internal_error naming its Go type (a bug, or an engine error that
//     should get a kind).
func toolError(err error) error {
	if err == nil {
		return nil
	}
	var te *envelope.ToolError
	if errors.As(err, &te) {
		return te
	}
	code, ok := kindCodes[errkind.Of(err)]
	if !ok {
		return err
	}
	out := envelope.Errorf(code, "%s", err.Error())
	if d := errkind.DetailsOf(err); len(d) > 0 {
		out.WithDetailsMap(d)
	}
	for _, r := range remedies {
		if r.match(err) {
			out.WithRemedy(r.fix, r.tools...)
			break
		}
	}
	return out
}
