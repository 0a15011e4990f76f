// Package roofline says how fast the hardware allows a cell to be: the
// ceiling of each decode cell (bound by memory bandwidth at small batch, by
// compute at large) and of each prefill (bound by compute), from the facts
// of the GPU (NVML's bandwidth, a table of NVIDIA data-sheet peaks) and of
// the model (vLLM's start-up log, its config.json and safetensors index).
//
// The engine, the simulator, the charts and both front ends share its one
// set of formulas. What it may import is one table for the whole tree,
// allowedImports in imports_test.go, which TestImportRules checks.
// docs/METHODOLOGY.md ("Roofline") has the formulas and assumptions.
package roofline
