// Package pipelinestest makes example configurations for DAGs, the way a
// user would: it asks config for the template of a DAG (config.Template),
// fills every essential field with a plausible example value and builds the
// config set. Tests use it to prove that a DAG compiles; it also shows what
// a filled config looks like.
package pipelinestest
