// Package runner runs a sweep (engine/sweep's data): it makes the
// configurations from server.toml and the vary options or vary-file
// (Derive, Grid, ParseVary, ReadVaryFile, Resolve, Apply), launches each in
// turn through its front end's Hooks, measures it, runs its quality phase,
// waits for the GPUs' memory between two servers, and writes the summary
// after each (Runner.Run); it estimates how long a sweep takes (Estimate)
// and finishes an interrupted one (Resume).
//
// It is a child of engine/sweep, which it imports, so that sweep's data
// and answer import nothing of launch, measure, runs or TOML. It reads the
// GPUs through a GPUReader (hw's telemetry.Source on this machine) and
// draws no pictures (Hooks.Summarize): engine reaches up to neither hw nor
// charts.
package runner
