// Package testenv ends a test that needs what this machine lacks (a
// Python interpreter or module, bubblewrap, moto_server): the test skips
// with one line naming what is missing, except under CI (CI set to any
// non-empty value), where every test must run and it fails instead. It is
// the one place tests decide between skipping and failing; it is used by
// tests only.
package testenv
