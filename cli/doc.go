// Package cli implements the headless subcommands of speedmatrix (run, sim,
// hw, report). main.go only parses the subcommand name and calls in here.
//
// cli is a front end beside app: it may import engine and its sub-packages,
// hw and charts, never app or Fyne.
package cli
