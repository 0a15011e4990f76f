package roofline

import (
	"errors"
	"fmt"

	"speedmatrix/engine"
)

// ErrUnknownGPU says the GPU table has no row for the GPU: its compute
// peaks are unknown, and the roofline is not guessed.
var ErrUnknownGPU = errors.New("roofline unavailable: unknown GPU")

// NewGPU gives the facts of count GPUs named name: the compute peaks from
// the table, the bandwidth from NVML when nvmlGBs > 0, else from the table.
// A GPU the table lacks is ErrUnknownGPU.
func NewGPU(name string, count int, nvmlGBs float64) (engine.RooflineGPU, error) {
	p, ok := lookupPeak(name)
	if !ok {
		return engine.RooflineGPU{}, fmt.Errorf("%w (%s)", ErrUnknownGPU, name)
	}
	if count < 1 {
		count = 1
	}
	g := engine.RooflineGPU{Name: name, Count: count, BandwidthGBs: p.BandwidthGBs, BandwidthSource: "table: " + p.Row,
		BF16TFLOPs: p.BF16TFLOPs, FP8TFLOPs: p.FP8TFLOPs, FP4TFLOPs: p.FP4TFLOPs,
		ComputeSource: "table: " + p.Row + " (" + p.Source + ")"}
	if nvmlGBs > 0 {
		g.BandwidthGBs, g.BandwidthSource = nvmlGBs, "nvml"
	}
	return g, nil
}
