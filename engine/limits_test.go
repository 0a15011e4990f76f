package engine

import "testing"

func TestFitContext(t *testing.T) {
	got := FitContexts([]int{8 * K, 128 * K, 256 * K}, 131072, 4096)
	if len(got) != 2 || got[0] != 8*K || ContextLabel(got[1]) != "123K" {
		t.Errorf("fitContexts = %v, want [8K 123K] (the reference reports' label for 131,072 − 4,096 − reserve)", got)
	}
	if fitContext(128*K, 0, 4096) != 128*K {
		t.Error("an unknown max_model_len must leave the context as asked")
	}
}
