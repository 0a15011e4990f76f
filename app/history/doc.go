// Package history is the History screen: the saved runs and sweeps, each
// opened in Results, resumed on the Run screen, renamed, deleted or
// imported, and two of them compared.
package history
