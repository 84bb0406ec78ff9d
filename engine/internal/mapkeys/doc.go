// Package mapkeys holds the one map helper every engine package needs: the
// keys of a string-keyed map in sorted order, for deterministic output and
// messages. It is internal to the engine.
package mapkeys
