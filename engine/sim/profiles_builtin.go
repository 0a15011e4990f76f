package sim

// The built-in profiles. The two reference profiles are fitted to the
// reference reports in docs/reference (see model_test.go for the agreement
// table); their figures are simulated, not measured.

// The built-in profiles' noise (METHODOLOGY.md, "The simulator's noise"):
// chosen so that an adaptive window (engine.Plan.Precision ±1 %) on a
// reference decode cell ends after 5 to 20 s, about 7 s on average
// (TestNoisePrecisionWindow). A server GPU in a data-centre chassis holds
// its clocks steadier than a desktop card near its power limit beside a
// desktop CPU; two cards in tensor parallel also wait on each other's
// all-reduce every step.
var (
	serverNoise     = Noise{StepJitter: 0.015, Drift: 0.005, DriftTimeS: 1, HiccupsPerS: 0.05, HiccupS: 0.02}
	desktopNoise    = Noise{StepJitter: 0.015, Drift: 0.005, DriftTimeS: 1, HiccupsPerS: 0.1, HiccupS: 0.02}
	tp2DesktopNoise = Noise{StepJitter: 0.02, Drift: 0.005, DriftTimeS: 1, HiccupsPerS: 0.1, HiccupS: 0.02}
)

func tinyProfile() Profile {
	return Profile{
		Name:             "tiny",
		Description:      "a small fast model with an 8K context, for demos and tests",
		Model:            "speedmatrix/tiny-sim",
		ServedModel:      "tiny",
		Version:          "0.32.0",
		Quantization:     "BF16",
		GPUName:          "Simulated GPU",
		VRAMBytes:        8 << 30,
		MaxModelLen:      8192,
		KVCacheTokens:    98304,
		BlockSize:        16,
		MaxNumSeqs:       64,
		MaxBatchedTokens: 2048,
		Perf: Perf{
			PrefillStepS:      0.002,
			PrefillPerTokenS:  20e-6,
			PrefillQuadS:      1e-9,
			DecodeBaseS:       []Knot{{1, 0.005}, {8, 0.0055}, {32, 0.008}, {64, 0.011}},
			DecodeAttnS:       []Knot{{1, 0.1e-6}, {8, 0.15e-6}, {32, 0.8e-6}, {64, 1.6e-6}},
			FrontendS:         0.002,
			FrontendPerTokenS: 0.5e-6,
		},
		Noise:         serverNoise,
		LaunchCommand: "vllm serve speedmatrix/tiny-sim --served-model-name tiny --max-model-len 8192",
	}
}

// tinySpecProfile is tiny served with speculative decoding: three draft
// tokens a step, each accepted with probability 0.7 after its predecessor.
func tinySpecProfile() Profile {
	p := tinyProfile()
	p.Name = "tiny-spec"
	p.Description = "tiny with speculative decoding (3 draft tokens, 70 % accepted per position): several tokens per step"
	p.SpecDecode = &SpecDecode{NumSpeculativeTokens: 3, AcceptanceRate: 0.7, DraftTokenS: 0.0004}
	p.LaunchCommand = `vllm serve speedmatrix/tiny-sim --served-model-name tiny --max-model-len 8192 --speculative-config '{"method":"ngram","num_speculative_tokens":3}'`
	return p
}

func rtxPro6000Profile() Profile {
	return Profile{
		Name:             "gemma-4-e2b-rtxpro6000",
		Description:      "gemma-4-E2B-it (BF16) on an RTX PRO 6000 Blackwell 96GB, fitted to reference report 000",
		Model:            "RedHatAI/gemma-4-E2B-it",
		ServedModel:      "gemma",
		Version:          "0.30.1rc1.dev452+g73a583112",
		Quantization:     "BF16",
		GPUName:          "RTX PRO 6000 Blackwell Server Edition",
		VRAMBytes:        96 << 30,
		MaxModelLen:      131072,
		KVCacheTokens:    10_420_224,
		BlockSize:        16,
		MaxNumSeqs:       256,
		MaxBatchedTokens: 8192,
		ReasoningParser:  "gemma4",
		ReasoningTokens:  128,
		Perf: Perf{
			PrefillStepS:      0.002,
			PrefillPerTokenS:  1.518e-05,
			PrefillQuadS:      6.818e-10,
			DecodeBaseS:       []Knot{{1, 0.005533}, {2, 0.005966}, {4, 0.00605}, {8, 0.006039}, {16, 0.006444}, {32, 0.007257}, {64, 0.008561}, {128, 0.01126}},
			DecodeAttnS:       []Knot{{1, 4.713e-08}, {2, 4.743e-08}, {4, 4.737e-08}, {8, 5.125e-08}, {16, 5.219e-08}, {32, 1.029e-07}, {64, 1.513e-07}, {128, 2.904e-07}},
			FrontendS:         0.005,
			FrontendPerTokenS: 2.5e-6,
		},
		Noise:         serverNoise,
		Roofline:      &Roofline{Arch: gemma4E2BArch()},
		LaunchCommand: "vllm serve RedHatAI/gemma-4-E2B-it --served-model-name gemma --reasoning-parser gemma4 --max-model-len 131072 --gpu-memory-utilization 0.83 --async-scheduling",
	}
}

func rtx3090Profile() Profile {
	return Profile{
		Name:             "gemma-4-26b-a4b-nvfp4-rtx3090",
		Description:      "gemma-4-26B-A4B-it (NVFP4, int4 KV cache) on an RTX 3090 24GB, fitted to reference report 003",
		Model:            "RedHatAI/gemma-4-26B-A4B-it-NVFP4",
		ServedModel:      "bench",
		Version:          "0.32.0",
		Quantization:     "NVFP4",
		GPUName:          "RTX 3090",
		VRAMBytes:        24 << 30,
		MaxModelLen:      262144,
		KVCacheTokens:    446_464,
		BlockSize:        16,
		MaxNumSeqs:       128,
		MaxBatchedTokens: 2048,
		Perf: Perf{
			PrefillStepS:     0.01,
			PrefillPerTokenS: 0.0001483,
			PrefillQuadS:     3.462e-09,
			// Knots past 32 (no Valid reference cell) follow the shape of the other fit.
			DecodeBaseS:       []Knot{{1, 0.00813}, {2, 0.0085}, {8, 0.01549}, {16, 0.02142}, {32, 0.02913}, {64, 0.0385}, {128, 0.0505}},
			DecodeAttnS:       []Knot{{1, 1.172e-07}, {2, 1.179e-07}, {8, 1.274e-07}, {16, 1.298e-07}, {32, 2.559e-07}, {64, 3.76e-07}, {128, 7.22e-07}},
			FrontendS:         0.005,
			FrontendPerTokenS: 2.5e-6,
		},
		Noise: desktopNoise,
		// The reference report's Looped cells: bucket edges are midway (geometrically)
		// between the reference report's contexts 0, 16K, 32K, 64K, 128K and 248K.
		Loop: Loop{AfterTokens: 64, Rules: []LoopRule{
			{0, 4095, []int{2, 4}},
			{12 * 1024, 24*1024 - 1, []int{1, 2, 4, 8, 16}},
			{24 * 1024, 48*1024 - 1, []int{1, 2, 4, 8}},
			{48 * 1024, 96*1024 - 1, []int{2, 4}},
			{96 * 1024, 192*1024 - 1, []int{1}},
			{192 * 1024, 256 * 1024, []int{1}},
		}},
		Roofline:      &Roofline{Arch: gemma4_26BA4BArch(), KVCacheDType: "int4_per_token_head"},
		LaunchCommand: "vllm serve RedHatAI/gemma-4-26B-A4B-it-NVFP4 --served-model-name bench --max-model-len 262144 --gpu-memory-utilization 0.94 --max-num-seqs 128 --enable-prefix-caching --kv-cache-dtype int4_per_token_head",
	}
}

// llama70bTP2Profile is a 70B model that no single 24 GB card holds, served
// by two RTX 3090s with tensor parallelism, as home labs run it. It is not
// fitted to a reference report: its figures are estimated from the cards'
// memory bandwidth (936 GB/s each, half of the ~40 GB of AWQ weights per
// card), their FP16 tensor throughput and an all-reduce over PCIe without
// NVLink, and are simulated like every other profile's.
func llama70bTP2Profile() Profile {
	return Profile{
		Name:             "llama-3.3-70b-awq-2x3090-tp2",
		Description:      "Llama-3.3-70B-Instruct (AWQ int4, FP8 KV cache) on 2 × RTX 3090 24GB with tensor parallelism 2, PCIe 4.0 x16 each, no NVLink; estimated from the cards' specifications, not fitted to a measured run",
		Model:            "casperhansen/llama-3.3-70b-instruct-awq",
		ServedModel:      "llama-70b",
		Version:          "0.32.0",
		Quantization:     "AWQ",
		GPUName:          "RTX 3090",
		VRAMBytes:        24 << 30,
		MaxModelLen:      16384,
		KVCacheTokens:    26_208,
		BlockSize:        16,
		MaxNumSeqs:       32,
		MaxBatchedTokens: 4096,
		Perf: Perf{
			PrefillStepS:      0.03,
			PrefillPerTokenS:  1.1e-3,
			PrefillQuadS:      1.5e-8,
			DecodeBaseS:       []Knot{{1, 0.029}, {2, 0.0298}, {4, 0.0312}, {8, 0.0345}, {16, 0.041}, {32, 0.056}},
			DecodeAttnS:       []Knot{{1, 1.0e-7}, {4, 2.2e-7}, {8, 3.8e-7}, {16, 7.0e-7}, {32, 1.35e-6}},
			FrontendS:         0.005,
			FrontendPerTokenS: 2.5e-6,
		},
		Noise:         tp2DesktopNoise,
		LaunchCommand: "CUDA_VISIBLE_DEVICES=0,1 vllm serve casperhansen/llama-3.3-70b-instruct-awq --served-model-name llama-70b --tensor-parallel-size 2 --max-model-len 16384 --max-num-seqs 32 --kv-cache-dtype fp8 --gpu-memory-utilization 0.95",
		Roofline:      &Roofline{Arch: llama33_70BArch(), KVCacheDType: "fp8"},
		Rig: Rig{
			Count: 2, IdleW: 30, TDPW: 350,
			IdleSMClockMHz: 210, BoostSMClockMHz: 1860, IdleMemClockMHz: 405, LoadMemClockMHz: 9751,
			// 39.8 GB of weights and 160 KiB of FP8 KV cache a token (80
			// layers × 8 KV heads × 128 × K and V), halved on each card.
			WeightsBytes: 39_800 << 20, KVBytesPerToken: 160 << 10, OverheadBytes: 1_400 << 20,
			PCIeGen: 4, PCIeWidth: 16,
			// The upper card breathes the lower one's exhaust.
			AmbientC: 28, CPerW: 0.135, StackC: 4,
		},
	}
}
