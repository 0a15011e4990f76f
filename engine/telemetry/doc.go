// Package telemetry samples what the hardware does during a run and
// summarises each cell's window of it: a Sampler reads a Source every
// interval into a bounded ring, and its Summary is the engine.Telemetry a
// Result carries (averages, peaks, the throttle verdict, the PCIe link
// under load).
//
// It lives under engine, apart from hw, because it is pure Go over
// engine's types: the Sources are what differ. hw reads this machine
// through NVML and gopsutil (hw.NewSampler), engine/dcgm a node's DCGM
// exporter, and engine/simtarget the simulator's model of its GPUs; none of
// the latter two needs cgo, NVML or gopsutil, so nothing under engine
// imports hw. It is a package of its own, not part of engine, because a
// Sampler runs a goroutine, and engine does no I/O.
package telemetry
