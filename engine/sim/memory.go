package sim

import (
	"math"
	"regexp"
	"strconv"
)

// DefaultGPUMemoryUtilization is vLLM's --gpu-memory-utilization when its
// command line gives none.
const DefaultGPUMemoryUtilization = 0.9

var utilRE = regexp.MustCompile(`--gpu-memory-utilization[ =]([0-9.]+)`)

// GPUMemoryUtilization is the --gpu-memory-utilization of the setup p
// stands for: its LaunchCommand's, else vLLM's default. p's KVCacheTokens
// is the KV cache vLLM had at that share of GPU memory.
func (p Profile) GPUMemoryUtilization() float64 {
	if m := utilRE.FindStringSubmatch(p.LaunchCommand); m != nil {
		if u, err := strconv.ParseFloat(m[1], 64); err == nil && u > 0 {
			return u
		}
	}
	return DefaultGPUMemoryUtilization
}

// KVCacheAt is the KV cache p's setup gets with --gpu-memory-utilization
// util and KV entries bytesFactor times the size of p's (0.5: FP8 in place
// of a 16-bit cache), by vLLM's rule: the KV cache takes util × the GPUs'
// memory less the peak use of weights and activations. That peak is what
// p's own KV cache leaves of p's own share (GPUMemoryUtilization), so
// KVCacheAt(p.GPUMemoryUtilization(), 1) is p.KVCacheTokens. Memory is
// over all of the rig's GPUs (GPURig); tokens are whole blocks, and
// memBytes is 0 or less when util leaves the cache nothing.
func (p Profile) KVCacheAt(util, bytesFactor float64) (tokens int, memBytes float64) {
	rig := p.GPURig()
	perToken := float64(rig.KVBytesPerToken)
	vram := float64(p.VRAMBytes) * float64(rig.GPUs())
	// Computed from the difference, so that p's own share gives p's own
	// cache exactly.
	memBytes = float64(p.KVCacheTokens)*perToken + (util-p.GPUMemoryUtilization())*vram
	return p.KVTokensIn(memBytes, bytesFactor), memBytes
}

// KVTokensIn is how many tokens, in whole blocks, a KV cache of memBytes
// holds in p's setup with KV entries bytesFactor times the size of p's
// (vLLM's --kv-cache-memory-bytes, over all GPUs); 0 for no memory.
func (p Profile) KVTokensIn(memBytes, bytesFactor float64) int {
	perToken := p.KVBytesFor(1, bytesFactor)
	if memBytes <= 0 || perToken <= 0 {
		return 0
	}
	blocks := int(math.Floor(memBytes/perToken/float64(p.BlockSize) + 1e-9))
	return blocks * p.BlockSize
}

// KVBytesFor is the KV cache memory n tokens take in p's setup with KV
// entries bytesFactor times the size of p's.
func (p Profile) KVBytesFor(n int, bytesFactor float64) float64 {
	return float64(n) * float64(p.GPURig().KVBytesPerToken) * bytesFactor
}
