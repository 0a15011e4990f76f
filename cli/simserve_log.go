package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine/report"
)

// vllmLog writes log lines in vLLM's format, "(APIServer pid=7) INFO
// 12-02 11:28:26 [api_utils.py:286] text", as engine/launch's log parser
// reads vLLM's (the formats are those of testdata/real's vLLM 0.32 logs).
type vllmLog struct {
	w   io.Writer
	pid int
}

// printf writes one line of proc (APIServer, EngineCore_DP0, Worker) at
// level from file.
func (l vllmLog) printf(proc, level, file, format string, v ...any) {
	fmt.Fprintf(l.w, "(%s pid=%d) %s %s [%s] %s\n", proc, l.pid, level, time.Now().Format("01-02 15:04:05"), file, fmt.Sprintf(format, v...))
}

// raw writes a line with no prefix, as Python's uncaught exceptions and
// uvicorn's start-up lines are.
func (l vllmLog) raw(line string) { fmt.Fprintln(l.w, line) }

// logStartup writes what vLLM logs from its start to its KV cache size,
// with the stand-in's own lines after the arguments: what it is, and the
// flags its speed model ignores.
func logStartup(l vllmLog, a serveArgs, s standIn, timeScale float64) {
	p := s.profile
	l.printf("APIServer", "INFO", "api_utils.py:347", "vLLM API server version %s", p.Version)
	l.printf("APIServer", "INFO", "api_utils.py:286", "non-default args: %s", nonDefaultArgs(a))
	l.printf("APIServer", "INFO", "speedmatrix", "stand-in for vllm serve: speedmatrix's simulator with profile %s (%s); every figure it serves is simulated (time scale %g)",
		p.Name, p.GPUName, timeScale)
	if len(a.ignored) > 0 {
		l.printf("APIServer", "WARNING", "speedmatrix", "stand-in ignores: %s (no effect on its simulated speed)", strings.Join(a.ignored, ", "))
	}
	if note := numericsNote(s.numerics); note != "" {
		l.printf("APIServer", "INFO", "speedmatrix", "stand-in numerics: %s", note)
	}
	l.printf("EngineCore_DP0", "INFO", "core.py:133", "Initializing a V1 LLM engine (v%s) with config: model='%s', speculative_config=None, tokenizer='%s', "+
		"skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.%s, max_seq_len=%d, "+
		"download_dir=None, load_format=auto, tensor_parallel_size=%d, pipeline_parallel_size=1, data_parallel_size=1, quantization=%s, "+
		"enforce_eager=%s, kv_cache_dtype=%s, device_config=cuda, seed=%d, served_model_name=%s, enable_prefix_caching=%s, enable_chunked_prefill=True",
		p.Version, p.Model, p.Model, torchDType(a.dtype), p.MaxModelLen, max(a.tensorParallel, 1), pyNone(a.quantization),
		pyBoolWord(a.enforceEager), orAuto(a.kvCacheDType), a.seed, p.ServedModel, pyBoolWord(!p.NoPrefixCaching))
	l.printf("Worker_TP0", "INFO", "gpu_model_runner.py:3127", "Model loading took %.4f GiB memory and %.6f seconds", s.weightsBytes/gib, 0.5*s.startup.Seconds()/timeScale)
	l.printf("Worker_TP0", "INFO", "gpu_worker.py:391", "Available KV cache memory: %.2f GiB", s.kvMemBytes/gib)
}

// logKVCache writes vLLM's KV cache size line.
func logKVCache(l vllmLog, p profileSize) {
	l.printf("EngineCore_DP0", "INFO", "kv_cache_utils.py:2327", "GPU KV cache size: %s tokens, Maximum concurrency for %s tokens per request: %.2fx",
		report.Int(p.kvTokens), report.Int(p.maxModelLen), float64(p.kvTokens)/float64(p.maxModelLen))
}

// profileSize is what the KV cache line says.
type profileSize struct{ kvTokens, maxModelLen int }

const gib = float64(1 << 30)

// logFailure writes the lines vLLM writes as its engine core fails to
// start with s's failure: the engine core's traceback, then the API
// server's last words (those of testdata/real's vLLM 0.32 log).
func logFailure(l vllmLog, s standIn) {
	core := func(format string, v ...any) { l.printf("EngineCore_DP0", "ERROR", "core.py:1101", format, v...) }
	core("EngineCore failed to start.")
	core("Traceback (most recent call last):")
	p := s.profile
	switch s.failure {
	case failNoKVMemory:
		core("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.")
	case failKVTooSmall:
		core("ValueError: To serve at least one request with the models's max seq len (%d), (%.2f GiB KV cache is needed, which is larger than the available KV cache memory (%.2f GiB). "+
			"Based on the available memory, the estimated maximum model length is %d. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
			p.MaxModelLen, p.KVBytesFor(p.MaxModelLen, s.kvBytesFactor)/gib, s.kvMemBytes/gib, s.fitTokens)
	case failOutOfMemory:
		// PyTorch's caching allocator words it so (c10/cuda/CUDACachingAllocator.cpp);
		// vLLM's sampler warm-up wraps it (gpu_model_runner.py, _dummy_sampler_run).
		total := float64(p.VRAMBytes)
		free := max(0, (1-s.utilization)*total)
		core("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of %s of which %s is free. "+
			"Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is allocated by PyTorch, and 20.00 MiB is reserved by PyTorch but unallocated. "+
			"If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "+
			"See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
			torchSize(total), torchSize(free), torchSize(total-free), torchSize(total-free-(532<<20)))
		core("")
		core("The above exception was the direct cause of the following exception:")
		core("")
		core("Traceback (most recent call last):")
		core("RuntimeError: CUDA out of memory occurred when warming up sampler with %d dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
			min(p.MaxNumSeqs, p.MaxBatchedTokens))
	}
	l.raw("RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
}

// failureReason is the stand-in's one line on why it did not start.
func (s standIn) failureReason() string {
	switch s.failure {
	case failNoKVMemory:
		return fmt.Sprintf("--gpu-memory-utilization %g leaves the KV cache no memory", s.utilization)
	case failKVTooSmall:
		return fmt.Sprintf("a KV cache of %d tokens cannot hold one request of --max-model-len %d", s.fitTokens, s.profile.MaxModelLen)
	case failOutOfMemory:
		return fmt.Sprintf("out of GPU memory at --gpu-memory-utilization %g (the stand-in runs out from %g up)", s.utilization, oomUtilization)
	}
	return ""
}

// nonDefaultArgs writes the flags as vLLM's "non-default args" line does,
// a Python dict; the API key is <redacted>.
func nonDefaultArgs(a serveArgs) string {
	parts := []string{"'model_tag': '" + a.model + "'"}
	for _, g := range a.given {
		parts = append(parts, "'"+g.key+"': "+g.value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// torchDType is the torch dtype of --dtype as the engine config line
// writes it; the stand-in's models are bfloat16 by default.
func torchDType(dtype string) string {
	switch dtype {
	case "", "auto":
		return "bfloat16"
	case "half":
		return "float16"
	case "float":
		return "float32"
	}
	return dtype
}

// pyNone is v, or Python's None when it is empty.
func pyNone(v string) string {
	if v == "" {
		return "None"
	}
	return v
}

// orAuto is v, or auto when it is empty.
func orAuto(v string) string {
	if v == "" {
		return "auto"
	}
	return v
}

// torchSize writes bytes as PyTorch's format_size does: "1.02 GiB", "312.45 MiB".
func torchSize(b float64) string {
	switch {
	case b < 1<<10:
		return strconv.FormatFloat(b, 'f', 0, 64) + " bytes"
	case b < 1<<20:
		return fmt.Sprintf("%.2f KiB", b/(1<<10))
	case b < 1<<30:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", b/(1<<30))
}
