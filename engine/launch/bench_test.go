package launch

import (
	"testing"

	"speedmatrix/engine/secret"
)

// BenchmarkLogFactsAdd measures the cost of reading one log line (every
// line vLLM prints goes through it on the log reader's goroutine).
func BenchmarkLogFactsAdd(b *testing.B) {
	lines := benchLines
	var f LogFacts
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f.Add(lines[i%len(lines)])
	}
}

// BenchmarkRedactLine measures hiding the secrets of a server (key, HF
// token, one secret variable) in one log line, as logLine does to every line.
func BenchmarkRedactLine(b *testing.B) {
	known := []string{"sm-0123456789abcdef0123456789abcdef0123456789abcdef", "hf_0123456789abcdef", "wandb-0123456789"}
	lines := append(benchLines, "(APIServer pid=312) INFO [utils.py:1] non-default args: {'api_key': ['"+known[0]+"']}")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = secret.Text(lines[i%len(lines)], known...)
	}
}

// benchLines are typical lines of a vLLM log.
var benchLines = []string{
	"(APIServer pid=312) INFO 11-30 07:41:40 [api_server.py:1839] vLLM API server version 0.30.1rc1.dev452+g73a583112",
	"(EngineCore_DP0 pid=77) INFO 11-30 07:42:10 [kv_cache_utils.py:1087] GPU KV cache size: 1,234,567 tokens",
	"(APIServer pid=312) INFO 11-30 07:45:00 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 1650.3 tokens/s, Running: 16 reqs, Waiting: 0 reqs, GPU KV cache usage: 12.5%, Prefix cache hit rate: 97.1%",
	"(APIServer pid=312) INFO:     127.0.0.1:51234 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
}

// BenchmarkDisplay measures building the redacted launch command.
func BenchmarkDisplay(b *testing.B) {
	cfg := seed000()
	b.ReportAllocs()
	for b.Loop() {
		_ = displayWith(cfg, "/home/ann")
	}
}
