// Package hw detects the machine a benchmark runs on and reads what its
// hardware does during a run, as the telemetry.Source that
// engine/telemetry's Sampler samples (NewSampler): NVIDIA GPUs through NVML
// (go-nvml), the host (CPU, RAM, OS, kernel) through gopsutil. It is a headless adapter that the
// CLI, the app and tests share. What it may import is one table for the
// whole tree, allowedImports in imports_test.go, which TestImportRules
// checks.
//
// NVML is reached only through a session that exists after a successful
// nvml.Init: after a failed Init the library may not be loaded, and calling
// any other NVML function then kills the process with a symbol lookup error.
// A machine without NVIDIA's driver gets ErrNoNVML with the reason, and the
// host part of Hardware is still filled.
package hw
