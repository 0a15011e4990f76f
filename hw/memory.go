package hw

import (
	"math"

	"speedmatrix/engine/telemetry"
)

// GPUMemoryUsedMiB is the memory in use on each GPU of src, for a sweep's
// wait between two servers; ok is false when src reads no GPU or one of
// them could not be read.
func GPUMemoryUsedMiB(src telemetry.Source) (used []float64, ok bool) {
	s := src.Read()
	if len(s.GPUs) == 0 {
		return nil, false
	}
	for _, g := range s.GPUs {
		if math.IsNaN(g.MemoryUsedMiB) {
			return nil, false
		}
		used = append(used, g.MemoryUsedMiB)
	}
	return used, true
}
