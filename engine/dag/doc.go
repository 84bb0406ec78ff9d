// Package dag is the pipeline graph: a PipelineDAG of named nodes (DAG node
// names such as "TabularPreprocessing_training", of type catalog.NodeName,
// the type packages deps and compiler take them in) joined by directed edges
// (src runs before dst), its integrity report, its topological order and
// the serialized DAG file.
//
// # Model
//
// Nodes and edges keep their insertion order, because that order decides the
// step order of a compiled pipeline. A node is declared by New's node list
// or by AddNode. Edge endpoints are never declared implicitly: an edge whose
// endpoint was not declared stays in the graph (it has adjacency, so Parents
// and Children see it) but the endpoint is not a node, and Validate reports
// it under both "dangling_dependencies" and "undeclared_edge_nodes". A typo
// in an edge therefore surfaces instead of silently becoming a phantom step.
// Duplicate nodes and duplicate edges are ignored (Duplicates lists them).
//
// # Order
//
// TopologicalSort is Kahn's algorithm with a first-in-first-out queue seeded
// by the zero-in-degree nodes in node order; children are visited in edge
// insertion order. Edges to undeclared nodes are ignored; an edge from an
// undeclared node keeps its destination from ever becoming ready, so such a
// graph fails like a cyclic one ("DAG has cycles or disconnected nodes").
// For the 10-node xgboost end-to-end DAG this
// gives CradleDataLoading_training, CradleDataLoading_calibration,
// TabularPreprocessing_training, TabularPreprocessing_calibration,
// XGBoostTraining, XGBoostModelEval_calibration, Payload,
// ModelCalibration_calibration, Package, Registration.
//
// # Integrity
//
// Validate returns the issues by category: cycles (one message per
// elementary cycle, "Cycle detected: a -> b -> c", enumerated with Johnson's
// algorithm up to ValidateOptions.MaxCycles), dangling_dependencies,
// undeclared_edge_nodes, isolated_nodes and, when ValidateOptions.StepKnown
// is set, missing_steps. The graph is valid when no category is present.
//
// # File format
//
// The serialized DAG has schema version 1.0.0 (the format cursus (Python)
// reads and writes):
//
//	{"version": "1.0.0", "created_at": "...+00:00", "metadata": {...},
//	 "dag": {"nodes": [...], "edges": [[src, dst], ...]},
//	 "statistics": {"node_count", "edge_count", "has_cycles", "entry_nodes",
//	                "exit_nodes", "max_depth", "isolated_nodes"}}
//
// Parse accepts such files whoever wrote them (and the pipeline catalog's
// files, which have no version); WriteFile validates the graph
// first (it must sort, have a node and no dangling edge) and writes
// atomically (temporary file in the same directory, then rename).
//
// Every operation is linear in nodes plus edges, except cycle enumeration,
// which is linear per reported cycle.
package dag
