package roofline

import (
	"strings"
	"unicode"
)

// peak is one row of the GPU table: a GPU's dense tensor-core peaks and its
// memory bandwidth, as NVIDIA's data sheet states them.
type peak struct {
	// Row names the row: "H100 SXM", "RTX 3090".
	Row string
	// BandwidthGBs is the peak memory bandwidth in GB/s (10^9 bytes/s).
	BandwidthGBs float64
	MemoryType   string
	// BF16TFLOPs, FP8TFLOPs and FP4TFLOPs are dense tensor-core peaks in
	// 10^12 FLOP/s with FP32 accumulation (data sheets quote sparsity: half
	// of that); 0 where the GPU has no such tensor cores.
	BF16TFLOPs, FP8TFLOPs, FP4TFLOPs float64
	// Source is the data-sheet figure the row comes from.
	Source string

	// all are the name's words that must be present, none those that
	// must not (matched against NVML's name, see words).
	all, none []string
}

// table holds current NVIDIA GPUs, most specific rows first (H100 PCIe
// before H100). The dense figures are the data sheets' sparse figures
// halved; GeForce cards run BF16 and FP8 at half rate with FP32
// accumulation, which is what serving kernels use.
var table = []peak{
	{Row: "B200", BandwidthGBs: 8000, MemoryType: "HBM3e", BF16TFLOPs: 2250, FP8TFLOPs: 4500, FP4TFLOPs: 9000, all: w("b200"),
		Source: "NVIDIA HGX B200 data sheet, 8 GPUs: FP4 144, FP8 72, BF16 36 PFLOPS with sparsity; 64 TB/s HBM3e"},
	{Row: "GB200", BandwidthGBs: 8000, MemoryType: "HBM3e", BF16TFLOPs: 2500, FP8TFLOPs: 5000, FP4TFLOPs: 10000, all: w("gb200"),
		Source: "NVIDIA GB200 NVL72 data sheet, 72 GPUs: FP4 1,440, FP8 720, BF16 360 PFLOPS with sparsity; 576 TB/s HBM3e"},
	{Row: "H200 NVL", BandwidthGBs: 4800, MemoryType: "HBM3e", BF16TFLOPs: 835.5, FP8TFLOPs: 1670.5, all: w("h200", "nvl"),
		Source: "NVIDIA H200 data sheet, H200 NVL: BF16 1,671, FP8 3,341 TFLOPS with sparsity; 4.8 TB/s"},
	{Row: "H200 SXM", BandwidthGBs: 4800, MemoryType: "HBM3e", BF16TFLOPs: 989.5, FP8TFLOPs: 1979, all: w("h200"),
		Source: "NVIDIA H200 data sheet, H200 SXM: BF16 1,979, FP8 3,958 TFLOPS with sparsity; 4.8 TB/s"},
	{Row: "H100 NVL", BandwidthGBs: 3900, MemoryType: "HBM3", BF16TFLOPs: 835.5, FP8TFLOPs: 1670.5, all: w("h100", "nvl"),
		Source: "NVIDIA H100 data sheet, H100 NVL: BF16 1,671, FP8 3,341 TFLOPS with sparsity; 3.9 TB/s"},
	{Row: "H100 PCIe", BandwidthGBs: 2000, MemoryType: "HBM2e", BF16TFLOPs: 756.5, FP8TFLOPs: 1513, all: w("h100", "pcie"),
		Source: "NVIDIA H100 data sheet, H100 PCIe: BF16 1,513, FP8 3,026 TFLOPS with sparsity; 2 TB/s"},
	{Row: "H100 SXM", BandwidthGBs: 3350, MemoryType: "HBM3", BF16TFLOPs: 989.5, FP8TFLOPs: 1979, all: w("h100"),
		Source: "NVIDIA H100 data sheet, H100 SXM: BF16 1,979, FP8 3,958 TFLOPS with sparsity; 3.35 TB/s"},
	{Row: "A100 80GB PCIe", BandwidthGBs: 1935, MemoryType: "HBM2e", BF16TFLOPs: 312, all: w("a100", "80gb", "pcie"),
		Source: "NVIDIA A100 data sheet: BF16 312 TFLOPS (624 with sparsity); A100 80GB PCIe 1,935 GB/s"},
	{Row: "A100 80GB SXM", BandwidthGBs: 2039, MemoryType: "HBM2e", BF16TFLOPs: 312, all: w("a100", "80gb"),
		Source: "NVIDIA A100 data sheet: BF16 312 TFLOPS (624 with sparsity); A100 80GB SXM 2,039 GB/s"},
	{Row: "A100 40GB", BandwidthGBs: 1555, MemoryType: "HBM2", BF16TFLOPs: 312, all: w("a100"),
		Source: "NVIDIA A100 data sheet: BF16 312 TFLOPS (624 with sparsity); A100 40GB 1,555 GB/s"},
	{Row: "L40S", BandwidthGBs: 864, MemoryType: "GDDR6", BF16TFLOPs: 366.5, FP8TFLOPs: 733, all: w("l40s"),
		Source: "NVIDIA L40S data sheet: BF16 733, FP8 1,466 TFLOPS with sparsity; 864 GB/s"},
	{Row: "L40", BandwidthGBs: 864, MemoryType: "GDDR6", BF16TFLOPs: 181, FP8TFLOPs: 362, all: w("l40"),
		Source: "NVIDIA L40 data sheet: BF16 362, FP8 724 TFLOPS with sparsity; 864 GB/s"},
	{Row: "L4", BandwidthGBs: 300, MemoryType: "GDDR6", BF16TFLOPs: 121, FP8TFLOPs: 242.5, all: w("l4"),
		Source: "NVIDIA L4 data sheet: BF16 242, FP8 485 TFLOPS with sparsity; 300 GB/s"},
	{Row: "A10", BandwidthGBs: 600, MemoryType: "GDDR6", BF16TFLOPs: 125, all: w("a10"),
		Source: "NVIDIA A10 data sheet: BF16 125 TFLOPS (250 with sparsity); 600 GB/s"},
	{Row: "RTX PRO 6000 Blackwell", BandwidthGBs: 1792, MemoryType: "GDDR7", BF16TFLOPs: 503.8, FP8TFLOPs: 1007.6, FP4TFLOPs: 2015,
		all: w("rtx", "pro", "6000", "blackwell"), none: w("max"),
		Source: "NVIDIA RTX PRO 6000 Blackwell data sheet: 4,000 AI TOPS (FP4 with sparsity), 1,792 GB/s GDDR7; BF16 and FP8 at 1/4 and 1/2 of FP4 (RTX Blackwell architecture whitepaper)"},
	{Row: "RTX 6000 Ada", BandwidthGBs: 960, MemoryType: "GDDR6", BF16TFLOPs: 364.2, FP8TFLOPs: 728.5, all: w("rtx", "6000", "ada"),
		Source: "NVIDIA RTX 6000 Ada data sheet: 1,457 TFLOPS FP8 with sparsity, 960 GB/s; BF16 364.2 TFLOPS dense (Ada architecture whitepaper)"},
	{Row: "RTX A6000", BandwidthGBs: 768, MemoryType: "GDDR6", BF16TFLOPs: 154.8, all: w("a6000"),
		Source: "NVIDIA RTX A6000 data sheet: 309.7 TFLOPS tensor with sparsity, 768 GB/s"},
	{Row: "RTX 5090", BandwidthGBs: 1792, MemoryType: "GDDR7", BF16TFLOPs: 209.5, FP8TFLOPs: 419, FP4TFLOPs: 1676, all: w("rtx", "5090"),
		Source: "NVIDIA RTX Blackwell architecture whitepaper, RTX 5090: 3,352 AI TOPS (FP4 with sparsity); BF16 209.5, FP8 419 TFLOPS dense with FP32 accumulate; 1,792 GB/s"},
	{Row: "RTX 4090", BandwidthGBs: 1008, MemoryType: "GDDR6X", BF16TFLOPs: 165.2, FP8TFLOPs: 330.3, all: w("rtx", "4090"),
		Source: "NVIDIA Ada architecture whitepaper, RTX 4090: BF16 165.2, FP8 330.3 TFLOPS dense with FP32 accumulate; 1,008 GB/s"},
	{Row: "RTX 3090 Ti", BandwidthGBs: 1008, MemoryType: "GDDR6X", BF16TFLOPs: 80, all: w("rtx", "3090", "ti"),
		Source: "NVIDIA Ampere GA102 architecture whitepaper scaled to the RTX 3090 Ti's 1,860 MHz boost: BF16 80 TFLOPS dense with FP32 accumulate; 1,008 GB/s"},
	{Row: "RTX 3090", BandwidthGBs: 936, MemoryType: "GDDR6X", BF16TFLOPs: 71, all: w("rtx", "3090"),
		Source: "NVIDIA Ampere GA102 architecture whitepaper, RTX 3090: BF16 71 TFLOPS dense with FP32 accumulate (142 with sparsity); 936 GB/s"},
}

func w(words ...string) []string { return words }

// lookupPeak finds the table row of a GPU by its NVML name ("NVIDIA
// GeForce RTX 3090", "NVIDIA H100 80GB HBM3"); false when the table has
// none.
func lookupPeak(name string) (peak, bool) {
	have := map[string]bool{}
	for _, word := range words(name) {
		have[word] = true
	}
rows:
	for _, p := range table {
		for _, word := range p.all {
			if !have[word] {
				continue rows
			}
		}
		for _, word := range p.none {
			if have[word] {
				continue rows
			}
		}
		return p, true
	}
	return peak{}, false
}

// words splits a GPU name into lower-case words at spaces, hyphens and
// other punctuation: "A100-SXM4-80GB" is a100, sxm4, 80gb.
func words(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
