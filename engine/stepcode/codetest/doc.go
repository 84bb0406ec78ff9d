// Package codetest runs the step code the catalog embeds (catalog.Code) for real: each script
// in a bubblewrap sandbox that mounts the job's container paths (/opt/ml/input, /opt/ml/model
// and /opt/ml/output for a training job; /opt/ml/processing for a processing job; the model
// directory for the serving handlers), with no network, on small generated data, with the
// Python of $CURSUS_PYTHON (default /usr/bin/python3, where Debian's ML stack lives).
//
// A test skips with the reason when bwrap or a Python module it needs is missing, and fails
// instead under CI (CI set), where .ci/run installs them. The package holds tests only; it is
// separate from engine/catalog so that the catalog's unit tests stay fast.
package codetest
