// Package probe runs the quality checks of engine/quality against a server
// through its OpenAI-compatible API: it records a reference (greedy
// continuations with their top-K logprobs by token id, and the same
// positions again under load for the noise floor), compares a server with
// one by teacher forcing the reference's continuations, and runs the
// needle task. It saves nothing itself: the caller's save func gets the
// reference or the report after every context, and writes it atomically.
// docs/METHODOLOGY.md ("Quality through a server") states the method and
// its cost.
package probe
