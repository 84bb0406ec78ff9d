// Package testfs holds the file-tree helpers the tests share
// (copying an example project to a temporary folder before a test changes
// or runs it). It is used by tests only.
package testfs
