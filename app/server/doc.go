// Package server is the Server screen: what to benchmark, a vLLM or SGLang
// server launched from its Launch form (launchForm), a server already
// running, or the built-in simulator; the server started here and what it
// says, the GPU metrics exporters, and "Compare settings…", which starts a
// sweep on the Run screen. It gives the other screens the target
// (app.TargetSource).
package server
