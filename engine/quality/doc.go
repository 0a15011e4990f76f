// Package quality measures whether a server still computes the same model:
// a reference recorded once (per probe, the greedy continuation and the
// top-K logprobs at each of its positions, twice: alone and under load),
// the drift of another server against it position by position, and its
// summary per context with bootstrap intervals over probes; the noise
// floor and the budget that decide whether a drift counts; and the
// statistics of answer accuracy (Wilson intervals, the paired McNemar
// test), the matchers of a task file and the needle task.
//
// It is pure: it does no I/O beyond reading the reader it is given, asks
// no server, and names no flag or field. Its errors are typed facts; the
// front ends word them. docs/METHODOLOGY.md ("Quality") states the math.
package quality
