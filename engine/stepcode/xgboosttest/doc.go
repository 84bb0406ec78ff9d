// Package xgboosttest runs the XGBoost pipeline's step code (catalog.Code:
// xgboost_training.py, the evaluation, inference, calibration, metrics,
// wiki, Package and Payload scripts, and inference/xgboost/inference.py) for
// real through engine/compiler/scripttest: each step compiled alone, its
// script in a bubblewrap sandbox at the job's container paths, on generated
// binary, three-class and regression data, each step on the previous one's
// output, ending with the packaged model's serving code answering the
// generated sample payloads.
//
// A test skips with the reason when bwrap or a Python module it needs is
// missing, and fails instead under CI. The package holds tests only; it is
// apart from scripttest so each test binary stays well inside go test's
// time limit.
package xgboosttest
