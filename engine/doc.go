// Package engine is the benchmark domain of Speed Matrix: the plan of a
// speed test matrix and its validation, the cells and the result of each
// with its status and flags, the report that carries them, the events a
// run emits, a server's limits and how a plan fits them, and the
// roofline's facts and ceiling formulas. It does no I/O, and it imports no
// Speed Matrix package: engine/measure runs a plan, the other packages
// under engine build on this one.
//
// It serves the desktop app, the headless CLI and the tests alike. What it
// may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks.
package engine
