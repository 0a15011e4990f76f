//go:build !unix

package sim

import "time"

// processCPU is unknown here: the benchmarks report 0 CPU.
func processCPU() time.Duration { return 0 }
