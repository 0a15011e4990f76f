// Package measure is the runner: Run measures a plan against the server a
// Subject describes and streams what happens as engine.Events. It detects
// the engine behind the endpoint (engine/servers), fits the plan to what
// the server holds, builds prompts of exact size, measures each context's
// prefill and each decode cell's sustained throughput over a fixed window,
// and checks every cell: loops, capacity, the server's idle state and
// drain, its own token count (/metrics), the GPUs' throttling. A run that
// stops early is resumable (Resume), and Estimate gives its duration before
// it starts.
//
// What it may import is one table for the whole tree, allowedImports in
// imports_test.go, which TestImportRules checks.
package measure
