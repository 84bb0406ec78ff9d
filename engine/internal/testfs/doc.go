// Package testfs holds the file-tree helpers the engine's tests share
// (copying an example project to a temporary folder before a test changes
// or runs it). It is internal to the engine and used by tests only.
package testfs
