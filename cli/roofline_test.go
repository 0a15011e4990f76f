package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/vllm"
	"speedmatrix/hw"
	"speedmatrix/hw/nvmlmock"
)

const llamaConfig = `{"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`

// The GPU of a DGX H200 as NVML reports it (6,144-bit bus at 3,201 MHz):
// its bandwidth from NVML, its peaks from the table's H200 row.
func TestRooflineFactsFromNVML(t *testing.T) {
	h, err := hw.DetectWith(nvmlmock.DGXH200())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(llamaConfig), 0o644)
	f := vllm.Roofline(engine.Report{Hardware: h.Info()}, dir, vllm.ServerFacts{TP: 1})
	if !f.Available() || f.GPU.BandwidthSource != "nvml" || int(f.GPU.BandwidthGBs) != 4916 || f.GPU.BF16TFLOPs != 989.5 ||
		!strings.HasPrefix(f.GPU.ComputeSource, "table: H200 SXM") {
		t.Errorf("H200 from NVML: %+v", f.GPU)
	}
}
