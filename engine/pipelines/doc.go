// Package pipelines is the shared pipeline catalog: ready-made DAGs of the
// engine's step types, each with the facts an agent needs to pick one
// (framework, complexity, task type, features, input requirements, cost)
// and to configure it (prerequisites, the fields the user must provide,
// safe defaults, common pitfalls, a small decision tree).
//
// # Data
//
// Every DAG is one embedded YAML file, dags/<id>.yaml, validated when the
// catalog is loaded (Default): the id matches the file name; framework,
// complexity, features, cost tier and data source come from closed lists,
// and the data source is what the DAG's loading steps read (LoadingSteps); nodes are
// unique; every edge joins two declared nodes; the graph has no cycle and
// no isolated node. A test checks that every node names a step type of the
// step catalog (dag.validate_integrity reports no issue, missing_steps
// included) and that every DAG compiles with a config made from
// config.Template with every essential field filled.
//
// # Queries
//
//   - List filters by framework, complexity and feature, sorted by id.
//   - Recommend is the agent-facing ranking: a requested framework is a hard filter, the
//     structured facts (data type, labels, LLM, multi-task, incremental,
//     GPU) multiply a score that starts at 1.0 and is capped at 1.0, and a
//     free-text need ("calibration and registration") is matched against
//     each DAG's features, node names and texts. Where the data lives
//     (Request.DataSource, or an s3:// URI or a source named in the need)
//     counts: a DAG loading from there scores in full, one loading from S3,
//     Athena or Redshift instead less (S3 data fits Athena and Redshift
//     best), one loading through the managed data service (Cradle) is left
//     out unless that source was asked for. Every factor is reported as a
//     reason. Ties go to the DAG that matches the need best, then to the
//     closer fit: fewer features beyond the need, data read directly
//     rather than through the data service, the smaller DAG, the id; the
//     winner of a tie says why. What no DAG of the framework can serve (an
//     LLM, multi-task training, a framework or data source the catalog
//     lacks, a need no DAG covers) is listed as unmatched.
//   - Score / AutoSelect rank by features:
//     0.5·(share of the requested features the DAG has) + 0.25 framework +
//     0.15 task type + 0.1 complexity, with partial credits for near misses;
//     AutoSelect returns the best DAG when it reaches a minimum score.
package pipelines
