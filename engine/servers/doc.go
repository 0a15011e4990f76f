// Package servers is what differs between the inference engines Speed
// Matrix measures: Registry, one Entry per engine, each in its own file:
// vllm.go, sglang.go and generic.go (any other OpenAI-compatible server).
// An entry says how the engine is recognised, the names on its /metrics
// page (which figure of openai.Metrics each gives, and which the checks and
// their messages cite), the server.toml keys it has no flag for, whether
// engine/launch starts it, the simulator mode that speaks as it and its
// environment prefixes; its Kind says the limits it reports and whether a
// request must be aborted on the server by its id. engine/measure asks
// Detect which engine it talks to; engine/launch, the CLI and the app read
// the entries.
//
// A new engine is a new entry here (and a flavor in engine/launch when
// Speed Matrix should start it, and a mode of the simulator). The simulator
// keeps its own literals on purpose: it is a test peer, and sharing the
// metric names with the client would hide a typo on both sides.
//
// What it may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks.
package servers
