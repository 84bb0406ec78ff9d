// Package project scaffolds a new pipeline project and plans its bring-up.
//
// Init writes, into <parent>/<name>_<framework>/:
//
//	README.md                         what the project is, its layout, the commands to check it
//	ACTION_ITEMS.md                   the ledger: every placeholder value to replace, every TODO
//	steps/<Custom>.step.yaml          a custom step for the project (a workspace dir: pass
//	                                  steps/ as workspace_dirs to validate.*, author.*)
//	scripts/<entry>.py                a script skeleton for the custom step, matching its
//	                                  contract exactly (ScriptSkeleton); the catalog steps
//	                                  run the catalog's own code, which a file of the same
//	                                  name here would replace
//	pipeline_config/dag.json          the framework's default DAG (DAG file format 1.0.0)
//	pipeline_config/config.json       a config for every node: defaults, the config template's
//	                                  values and placeholder-but-valid essential values
//	data/sample.csv                   40 rows of synthetic data (id, f1, f2, label) for
//	                                  validate.run_scripts
//
// Every file is rendered in memory and written to a temporary directory
// beside the target, which is then renamed into place (an existing target
// is replaced only with Overwrite, by a second rename), so a failure never
// leaves a partly written project. Confining the target to a project root
// is the caller's job (tools/project.go uses registry.ResolveWritePath);
// Init checks the name and refuses an existing target.
//
// The default DAG loads training and calibration data with
// DummyDataLoading, preprocesses them with TabularPreprocessing, passes
// them through the custom <Pascal name>FeatureEngineering step, trains the
// framework's training step and evaluates it on the calibration data with
// the framework's eval step. Frameworks: xgboost, pytorch, lightgbm
// (bedrock and lightgbmmt, which cursus (Python) scaffolds, are not offered: the catalog has no
// Bedrock or multi-task LightGBM steps to build their DAGs from).
package project
