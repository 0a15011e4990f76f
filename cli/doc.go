// Package cli implements the headless subcommands of speedmatrix (run,
// load, sweep, quality, report, sim and hw; Commands lists them). main.go
// only parses the subcommand name and calls in here.
//
// cli is a front end beside app, headless. What it may import is one table
// for the whole tree, allowedImports in imports_test.go, which
// TestImportRules checks.
package cli
