// Package servers is what differs between the inference engines Speed
// Matrix measures, one file per engine: vllm.go, sglang.go and generic.go
// (any other OpenAI-compatible server). Each says how the engine is
// recognised, the limits it reports, the names on its /metrics page (which
// figure of openai.Metrics each gives, and which the checks and their
// messages cite) and whether a request must be aborted on the server by its
// id. engine/measure asks Detect which engine it talks to; engine/launch
// names the engines it starts by their Name and Title here.
//
// A new engine is a new file here (and a flavor in engine/launch when
// Speed Matrix should start it, and a mode of the simulator). The simulator
// keeps its own literals on purpose: it is a test peer, and sharing the
// names with the client would hide a typo on both sides.
//
// What it may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks.
package servers
