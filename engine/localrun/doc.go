// Package localrun runs a compiled SageMaker pipeline definition on this
// machine, step by step, as SageMaker would run it: the same job
// arguments, environment, channels and container paths, the data passed
// from step to step as the definition's property references say. It
// proves that a pipeline runs before it is deployed.
//
// # Input
//
// [Run] takes a compiler.Result (its Definition, read as the JSON SageMaker
// gets, and its upload Manifest, whose code Manifest.Materialize writes)
// and [Options]: a work directory, local data, parameter values. Steps run
// in dependency order (DependsOn and {"Get": "Steps.X..."} references),
// each as soon as the steps it depends on have ended, as SageMaker runs an
// execution: at most the pipeline's MaxParallelExecutionSteps (its
// ParallelismConfiguration) at once, and no more than the CPUs the runner
// may use. The report lists the steps in dependency order (definition
// order otherwise) whatever order they ended in; each step's log is its
// own file. A failed step stops the steps that depend on it (they are
// skipped); the report names the step, its exit code and log tail. A
// cancelled run stops its jobs and still writes its report, which names
// the steps that were running (Report.Cancelled).
//
// # The local S3
//
// Every s3://bucket/key of the run is <run>/s3/bucket/key. The manifest's
// code is put there first. Options.Data binds an S3 URI (an object or a
// prefix) to a local path, or gives a step's outputs by
// "<step>.<output>". A processing output's directory is its S3Uri's
// place, bound at its LocalPath, so the next step's {"Get":
// "Steps.X.ProcessingOutputConfig.Outputs['o'].S3Output.S3Uri"} (through
// Std:Join, parameters and execution variables, resolved by the evaluator
// as SageMaker resolves them) names what the step wrote. An input whose
// prefix holds no objects fails the step, as it fails the job on SageMaker.
//
// # Step kinds
//
// How a step of each definition Type runs is one row of the table in
// kinds.go (its runner, output names, output URIs and the properties later
// steps read):
//
//   - Processing: each S3Input at its LocalPath (read-only; a single object
//     inside the directory under its own name), each output's LocalPath
//     writable, ContainerEntrypoint + ContainerArguments run with the
//     Environment (a python entry point runs with the interpreter,
//     CURSUS_PYTHON or python3).
//   - Training: as the SageMaker training toolkit runs a framework
//     image's script mode (harness/train.py): the code of
//     sagemaker_submit_directory in /opt/ml/code (an S3 sourcedir.tar.gz
//     unpacked by the runner as the toolkit would download it, except under
//     EnableNetworkIsolation, where the job fails; a path in the container,
//     such as the SDK's code channel, copied or unpacked by the harness),
//     each channel at /opt/ml/input/data/<channel>, hyperparameters.json,
//     inputdataconfig.json and resourceconfig.json in /opt/ml/input/config,
//     then python <sagemaker_program> with the decoded hyperparameters as
//     sorted --key value arguments and the SM_* variables; /opt/ml/model is
//     packed into <S3OutputPath>/<job>/output/model.tar.gz
//     (ModelArtifacts.S3ModelArtifacts), /opt/ml/output/data into
//     output.tar.gz.
//   - Model and RegisterModel: checked, not run. ModelDataUrl must be a
//     single gzip'ed tar (not a prefix) holding model files, and the
//     inference code must be where the model's image reads it
//     (containers.go; docs/local-run.md has the table and its sources):
//     TorchServe (PyTorch 1.2 and later) imports SAGEMAKER_PROGRAM only
//     from the archive's code/ and never reads SAGEMAKER_SUBMIT_DIRECTORY,
//     and serves with its default handlers (a TorchScript model.pt) when
//     there is no program; sagemaker-containers (XGBoost, scikit-learn)
//     import it from SAGEMAKER_SUBMIT_DIRECTORY, an S3 archive they
//     download (not under network isolation) or a folder of the model. A
//     SamplePayloadUrl must be an archive too.
//   - Transform: the model's archive unpacked at /opt/ml/model, its code
//     where its image reads it, and harness/transform.py serving the input
//     files as that container does: model_fn / input_fn / predict_fn /
//     output_fn (or transform_fn) of the program, the container's defaults
//     for those it lacks, JSON and CSV bodies as text, with SplitType,
//     batching, InputFilter, JoinSource, OutputFilter and AssembleWith;
//     <file>.out per input file. A request a handler fails fails the job.
//   - Substituted: a step of a managed data service (CradleDataLoading,
//     AthenaDataLoading, RedshiftDataLoading) whose outputs Options.Data
//     gives, or any step whose every output it gives, does not run; its
//     outputs are the data's paths. A missing one that a later step reads
//     is an error naming the data key to add. A managed data step that data
//     says nothing of runs its own script (which may work without the
//     service: synthetic data, an export); when it fails, the error names
//     the data keys that would stand in for it.
//   - Model calls: a step whose job calls a hosted model (BedrockProcessing,
//     BedrockBatchProcessing) runs its own script, with everything but the
//     call: the answers recorded beforehand that Options.Data gives under
//     "<step>.model_responses" (JSONL of {"id", "text"}, or a CSV of id,
//     text) are mounted at ModelResponsesPath and replayed by record id.
//     The step's result says so in Warnings and Checks ("model calls
//     substituted: ..."). Without them the step is refused before it runs,
//     naming the data key: the sandbox has no network.
//   - Condition: its conditions are evaluated as SageMaker evaluates them
//     (Std:JsonGet reads a property file of an earlier step, or a JSON
//     object by its S3 URI) and the branch they pick runs: IfSteps when
//     all hold, else ElseSteps. The steps of the branch not taken do not
//     run and are not among the report's steps; Report.Branches lists
//     them.
//   - Fail: the execution ends there, failed, with its ErrorMessage
//     (Failure.FailStep); the steps after it are skipped.
//   - Outside this machine (outside.go): a Lambda or Callback step is not
//     called; data gives its output parameters ("<step>.<output>", a local
//     file or folder later steps see at a local S3 URI), an output no later
//     step reads may be left out, and the step is reported substituted. A
//     QualityCheck or ClarifyCheck step runs SageMaker's own image (model
//     monitor, Clarify): it is substituted when data gives its baselines
//     ("<step>.CalculatedBaselineStatistics", ...), else the run stops at it
//     naming those keys. An EMR step stops the run: its job runs on an EMR
//     cluster.
//
// Other step types (Tuning, ...) fail with a message saying so.
//
// # Generated data
//
// Options.Generate names data keys the run makes up instead of reading:
// before the first step, the catalog's DummyDataGeneration script runs in
// the sandbox and writes 1000 rows with the columns the definition's
// trainer reads (the label_name, tab_field_list, cat_field_list and
// id_name of its hyperparameters; as many classes as its
// multiclass_categories or num_class say, else two), under
// <run>/generated/<n>/, bound to the key as data binds a path. [DataKeys]
// lists the inputs a compiled pipeline reads of the user's (its
// config-sourced S3 URIs), the keys a run needs given or generated.
//
// # Sandbox
//
// [Bubblewrap] (bwrap) is the sandbox, and a job has no power over it: it
// runs as an unprivileged user (the runner's, or under a root runner
// $CURSUS_SANDBOX_USER, default 65534:65534) in user, mount, PID, IPC, UTS,
// network and cgroup namespaces of its own, with no capability, no new
// user namespace and a seccomp filter that refuses mount, umount2,
// unshare, setns, pivot_root, ptrace and the kernel's more exposed
// interfaces (seccomp.go), in a read-only view of the host that holds only
// what a job needs: /usr, a few files of /etc and a passwd of its own, the
// interpreter, /sys/devices/system/cpu, fresh /proc and /dev, size-bounded
// tmpfs at /tmp, /dev/shm and /opt/ml, its inputs (read-only) and outputs
// (read-write) at their container paths, the harness scripts at /cursus
// (bwrap.go lists it; docs/sandbox.md says it in prose). Where bubblewrap
// cannot run, a run is refused with a *SandboxError (ErrSandboxUnavailable,
// the envelope's sandbox_unavailable) naming how to install it, unless the
// operator sets $CURSUS_SANDBOX=unsandboxed: then [PathRewrite] runs the
// jobs on the host (the container paths are symbolic links under a
// per-step root and harness/rewrite.py rewrites the string constants of
// the script and its own modules that name them), and every report says
// so (Report.SandboxNote).
//
// Nothing a job wrote is read through a link: every host-side access to a
// job's output (its failure file, property files, archives, the inputs it
// hands to the next job, directories made below an earlier output) is
// resolved through an os.Root on the directory it lies in (hostpath.go),
// regular files only and of bounded size; archives unpack through an
// os.Root on their destination, at most [MaxArchiveEntries] entries,
// [MaxArchiveBytes] and [MaxArchiveRatio] times their compressed size.
//
// Every job runs through internal/proc: a time limit (the step's
// StoppingCondition or Options.StepTimeout), an address-space limit
// (Options.MemoryBytes), its own process group killed on cancellation and
// with the parent, stdin /dev/null, its output captured with a cap (the
// newest 4 MiB kept in the step's log.txt) and an environment of its own
// (nothing of the caller's, credentials included). To it the runner adds
// settings for speed that change nothing a script computes (jobenv.go):
// OMP_WAIT_POLICY=PASSIVE, OMP_NUM_THREADS only under a CPU quota,
// SETUPTOOLS_USE_DISTUTILS=stdlib on Python 3.11 and older, and the run's
// matplotlib cache at matplotlib's default cache directory; the job's own
// Environment wins over each.
//
// # Report
//
// Each [StepResult] has the step's name, type, status (succeeded, failed,
// skipped, substituted, cancelled), duration, job time, outputs (absolute
// local paths), command, exit code, checks and log tail. The [Report] adds
// the sandbox, the interpreter, the parameters, the plots the steps drew
// into their outputs ([Plot]: ROC, precision-recall, reliability), and
// the runner's own overhead (the run's time in which no job ran); it is
// also written to <run>/report.json.
package localrun
