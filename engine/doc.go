// Package engine is the benchmark domain of Speed Matrix: the plan of a
// speed test matrix, the result of each cell, the report that carries them,
// and Run, which measures a plan against an OpenAI-compatible server.
//
// engine never imports Fyne: it serves the desktop app, the headless CLI and
// the tests alike.
package engine
