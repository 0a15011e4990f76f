// Package engine is the benchmark domain of Speed Matrix: the plan of a
// speed test matrix, the result of each cell, the report that carries them,
// and Run, which measures a plan against an OpenAI-compatible server.
//
// engine is the domain: it imports only engine/openai (the client it
// measures through), engine/secret (what is a secret and how it is hidden),
// engine/roofline (the hardware's ceiling of each cell) and the standard library, never Fyne, hw, charts or the
// other engine sub-packages (engine/report imports engine, not the other
// way round). It serves the desktop app, the headless CLI and the tests
// alike.
package engine
