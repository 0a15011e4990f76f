package report

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"speedmatrix/engine"
)

// bigLIBFile is the real llm-inference-bench file grown to contexts ×
// levels decode cells (1K, 2K, … × 1, 2, …), each a copy of its first
// cell with five request samples, its total tok/s rising with the
// requests and falling with the context, and a prefill entry per context:
// written indented, as the tool writes, 200 × 100 cells take about 80 MB.
func bigLIBFile(t testing.TB, contexts, levels int) []byte {
	t.Helper()
	data, err := os.ReadFile(libFixture)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	first := doc["results"].([]any)[0].(map[string]any)
	prefill := doc["prefill"].(map[string]any)["1024"]
	cells, pre := make([]any, 0, contexts*levels), map[string]any{}
	for _, ctx := range counting(contexts, engine.K) {
		pre[strconv.Itoa(ctx)] = prefill
		for _, conc := range counting(levels, 1) {
			cell := make(map[string]any, len(first))
			for k, v := range first {
				cell[k] = v
			}
			cell["context_tokens"], cell["concurrency"] = ctx, conc
			cell["aggregate_tps"] = 194 * float64(conc) / (1 + float64(ctx)/(16*engine.K))
			cells = append(cells, cell)
		}
	}
	meta := doc["metadata"].(map[string]any)
	meta["context_lengths"], meta["concurrency_levels"], meta["max_total_tokens"] = counting(contexts, engine.K), counting(levels, 1), 0
	doc["results"], doc["prefill"] = cells, pre
	if data, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestWriteBigLIBFile writes the 20,000-cell file scripts/bench-import.sh
// times to the path in SPEEDMATRIX_BIG_LIB, and checks that it imports.
func TestWriteBigLIBFile(t *testing.T) {
	path := os.Getenv("SPEEDMATRIX_BIG_LIB")
	if path == "" {
		t.Skip("set SPEEDMATRIX_BIG_LIB to a path to write the file (scripts/bench-import.sh does)")
	}
	if err := os.WriteFile(path, bigLIBFile(t, 200, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ofPhase(r.Results, engine.PhaseDecode)); n != 20000 {
		t.Errorf("%d decode cells, want 20,000", n)
	}
}

// BenchmarkDecodeLIB20000Cells imports a 200 × 100-cell llm-inference-bench file.
func BenchmarkDecodeLIB20000Cells(b *testing.B) {
	data := bigLIBFile(b, 200, 100)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Decode(data, "big.json"); err != nil {
			b.Fatal(err)
		}
	}
}
