// Package engine is the benchmark domain of Speed Matrix: the plan of a
// speed test matrix, the result of each cell, the report that carries them,
// and Run, which measures a plan against an OpenAI-compatible server.
//
// engine is the domain, with the runner that measures through engine/openai.
// It serves the desktop app, the headless CLI and the tests alike. What it
// may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks.
package engine
