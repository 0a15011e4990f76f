// Package roofline gathers the facts a roofline needs: of the GPU (NVML's
// bandwidth, a table of NVIDIA data-sheet peaks) and of the model (its
// config.json and safetensors index, vLLM's start-up log), as the
// engine.RooflineFacts of a run (ForServer). The ceilings themselves (each
// decode cell bound by memory bandwidth at small batch, by compute at
// large; each prefill by compute) are the domain's one set of formulas,
// engine.RooflineFacts.Decode and Prefill.
//
// What it may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks. docs/METHODOLOGY.md
// ("Roofline") has the formulas and assumptions.
package roofline
