// Package cli implements the headless subcommands of speedmatrix (run, sim,
// hw, report). main.go only parses the subcommand name and calls in here.
package cli
