package launch

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestEncodeConfigReadsBack: what EncodeConfig writes, DecodeConfig reads
// as the same server, every key set; the secrets are not in the text, and
// WithSecrets puts them back.
func TestEncodeConfigReadsBack(t *testing.T) {
	on := true
	full := ServerConfig{
		Server: "vllm", Runner: RunnerExec, Executable: "/opt/venv/bin/vllm", Model: "Qwen/Qwen3-0.6B", ServedModelName: "qwen",
		Revision: "main", TensorParallelSize: 2, PipelineParallelSize: 1, DataParallelSize: 1, MaxModelLen: 32768,
		GPUMemoryUtilization: 0.85, Quantization: "fp8", DType: "bfloat16", KVCacheDType: "fp8", MaxNumSeqs: 64,
		EnablePrefixCaching: &on, AttentionBackend: "FLASHINFER", AsyncScheduling: true, TrustRemoteCode: true,
		ReasoningParser: "qwen3", ToolCallParser: "hermes", Host: "127.0.0.1", Port: 8011,
		APIKey: "sm-secret-key", APIKeyFile: "/run/key", HFToken: "hf_secret_token",
		ExtraArgs: []string{"--seed", "1"}, Env: map[string]string{"MAX_JOBS": "2", "WANDB_API_KEY": "wandb-secret"},
		EnforceEager: true, GPUs: []int{0, 1}, KVCacheMemoryBytes: 8 << 30,
		StartupTimeout: 45 * time.Minute, StopGrace: 5 * time.Second, LogDir: "/tmp/logs",
	}
	for _, tt := range []struct {
		name string
		cfg  ServerConfig
		want []string // lines the text holds
	}{
		{"every key", full, []string{`model = "Qwen/Qwen3-0.6B"`, "max_num_seqs = 64", "enable_prefix_caching = true", `startup_timeout = "45m0s"`, "[env]"}},
		{"defaults only", ServerConfig{Model: "m"}, []string{`model = "m"`}},
		{"prefix caching off", ServerConfig{Model: "m", EnablePrefixCaching: new(bool)}, []string{"enable_prefix_caching = false"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, err := EncodeConfig(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			for _, s := range []string{"sm-secret-key", "hf_secret_token", "wandb-secret", "api_key", "hf_token"} {
				if strings.Contains(text, s) {
					t.Errorf("text holds the secret %q:\n%s", s, text)
				}
			}
			got, err := DecodeConfig("form", text)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if want := tt.cfg.WithDefaults(); !reflect.DeepEqual(WithSecrets(got, tt.cfg), want) {
				t.Errorf("read back\n%+v\nwant\n%+v\ntext:\n%s", WithSecrets(got, tt.cfg), want, text)
			}
		})
	}
}

// TestEncodeConfigLeavesEmptyOut: an empty list or an env of secrets alone
// writes no key (the form reads an empty field as an empty list).
func TestEncodeConfigLeavesEmptyOut(t *testing.T) {
	text, err := EncodeConfig(ServerConfig{Model: "m", ExtraArgs: []string{}, Env: map[string]string{"HF_TOKEN": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if text != "model = \"m\"\n" {
		t.Errorf("text = %q, want the model alone", text)
	}
}

// TestEncodeConfigCPU: the CPU build's keys read back, the pointer to the
// reserved cores included.
func TestEncodeConfigCPU(t *testing.T) {
	reserved := 2
	cfg := ServerConfig{Model: "m", Device: DeviceCPU, CPUKVCacheSpaceGiB: 8, CPUOMPThreadsBind: "0-7", CPUNumReservedCPUs: &reserved}
	text, err := EncodeConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeConfig("form", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !reflect.DeepEqual(got, cfg.WithDefaults()) {
		t.Errorf("read back %+v, want %+v\n%s", got, cfg.WithDefaults(), text)
	}
}
