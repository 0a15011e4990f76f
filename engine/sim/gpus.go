package sim

import (
	"math"
	"strings"
)

// Rig is the GPUs a profile models, for the simulator's GPU telemetry:
// how many serve the model (tensor parallel, each holding an even share of
// the weights and KV cache) and what each one draws, runs at and holds.
// The figures are a model of the card, not readings of one.
type Rig struct {
	// Count is how many GPUs serve the model; 0 means 1.
	Count int
	// IdleW is a GPU's power with the model loaded and nothing to do;
	// TDPW its power limit, drawn by compute-bound steps.
	IdleW, TDPW float64
	// SM and memory clocks at idle and under load.
	IdleSMClockMHz, BoostSMClockMHz  int
	IdleMemClockMHz, LoadMemClockMHz int
	// WeightsBytes is the whole model's weights, KVBytesPerToken the KV
	// cache one token takes over all layers; both are split over Count.
	WeightsBytes, KVBytesPerToken uint64
	// OverheadBytes is what each GPU holds besides its shares: the CUDA
	// context, CUDA graphs and activation buffers.
	OverheadBytes uint64
	// PCIeGen and PCIeWidth are each GPU's link (it runs at it under load).
	PCIeGen, PCIeWidth int
	// NVLink says whether an NVLink bridge joins the GPUs.
	NVLink bool
	// AmbientC is the air the cards breathe; a GPU settles at AmbientC +
	// CPerW × its power (plus StackC for each card below it).
	AmbientC, CPerW, StackC float64
}

// GPUs is how many GPUs serve the model.
func (r Rig) GPUs() int { return max(r.Count, 1) }

// VRAMUsedBytes is what each GPU holds while serving: vLLM allocates the
// whole KV cache when it starts, so this does not move with the load.
func (r Rig) VRAMUsedBytes(kvCacheTokens int) uint64 {
	n := uint64(r.GPUs())
	return (r.WeightsBytes+uint64(kvCacheTokens)*r.KVBytesPerToken)/n + r.OverheadBytes
}

// GPURig is the rig p models: p.Rig when it names one, else one GPU of the
// kind p.GPUName names with the facts of that card.
func (p Profile) GPURig() Rig {
	if p.Rig.Count > 0 {
		return p.Rig
	}
	r := Rig{Count: 1, IdleW: 25, TDPW: 300, IdleSMClockMHz: 210, BoostSMClockMHz: 1800,
		IdleMemClockMHz: 405, LoadMemClockMHz: 9000, OverheadBytes: 1 << 30,
		WeightsBytes: p.VRAMBytes / 4, KVBytesPerToken: 32 << 10,
		PCIeGen: 4, PCIeWidth: 16, AmbientC: 28, CPerW: 0.15}
	switch name := strings.ToUpper(p.GPUName); {
	case strings.Contains(name, "3090"):
		r.IdleW, r.TDPW, r.BoostSMClockMHz, r.LoadMemClockMHz = 30, 350, 1860, 9751
		r.CPerW = 0.135
		r.WeightsBytes, r.KVBytesPerToken = 15_500<<20, 12_600 // NVFP4 weights, int4 KV
	case strings.Contains(name, "PRO 6000"):
		r.IdleW, r.TDPW, r.BoostSMClockMHz, r.LoadMemClockMHz = 35, 600, 2617, 14001
		r.PCIeGen, r.CPerW = 5, 0.085
		r.WeightsBytes, r.KVBytesPerToken = 10<<30, 6_900 // BF16 weights, BF16 KV
	}
	return r
}

// busyPower is how much of the span from IdleW to TDPW a step draws: a
// step that prefills is compute-bound and draws all of it; a decode step
// streams the weights, and draws more as the batch grows towards
// max-num-seqs and the GPU turns compute-bound.
func (c *core) busyPower() float64 {
	if len(c.chunks) > 0 {
		return 1
	}
	b, full := float64(len(c.dec)), float64(max(c.prof.MaxNumSeqs, 2))
	return min(1, 0.6+0.4*math.Log2(max(b, 1))/math.Log2(full))
}
