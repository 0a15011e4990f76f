package dcgm

import (
	"strings"
	"testing"
)

// eightGPUPage is node1's page grown to 8 GPUs, the size of a DGX node's.
func eightGPUPage(b *testing.B) string {
	page := readFixture(b, "node1.prom")
	var out strings.Builder
	for _, line := range strings.Split(page, "\n") {
		out.WriteString(line + "\n")
		if strings.HasPrefix(line, "DCGM_FI_") && strings.Contains(line, `gpu="1"`) {
			for g := 2; g < 8; g++ {
				out.WriteString(strings.NewReplacer(`gpu="1"`, `gpu="`+string(rune('0'+g))+`"`, "GPU-8d2f", "GPU-"+string(rune('0'+g))+"d2f").Replace(line) + "\n")
			}
		}
	}
	return out.String()
}

// BenchmarkParse8GPUs is the cost of one exporter page of 8 GPUs, parsed
// once a second per node during a run.
func BenchmarkParse8GPUs(b *testing.B) {
	page := eightGPUPage(b)
	if rs, err := parse(page); err != nil || len(rs) != 8 {
		b.Fatalf("Parse = %d GPUs, %v", len(rs), err)
	}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = parse(page)
	}
}
