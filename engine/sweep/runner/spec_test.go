package runner

import (
	"strings"
	"testing"

	"speedmatrix/engine"
	"speedmatrix/engine/sweep"
)

func TestParseVary(t *testing.T) {
	tests := []struct {
		name    string
		options []string
		want    [][]sweep.Setting // nil with wantErr
		wantErr string
	}{
		{"ints and bools", []string{"max_num_seqs=4,16", "enforce_eager=false,true"},
			[][]sweep.Setting{{{Key: "max_num_seqs", Value: "4"}, {Key: "max_num_seqs", Value: "16"}}, {{Key: "enforce_eager", Value: "false"}, {Key: "enforce_eager", Value: "true"}}}, ""},
		{"bare and quoted strings", []string{`kv_cache_dtype=auto,"fp8"`},
			[][]sweep.Setting{{{Key: "kv_cache_dtype", Value: `"auto"`}, {Key: "kv_cache_dtype", Value: `"fp8"`}}}, ""},
		{"model with a slash", []string{"model=Qwen/Qwen3-0.6B,Qwen/Qwen3-0.6B-FP8"},
			[][]sweep.Setting{{{Key: "model", Value: `"Qwen/Qwen3-0.6B"`}, {Key: "model", Value: `"Qwen/Qwen3-0.6B-FP8"`}}}, ""},
		{"lists keep their commas", []string{"gpus=[0],[0,1]"},
			[][]sweep.Setting{{{Key: "gpus", Value: "[0]"}, {Key: "gpus", Value: "[0,1]"}}}, ""},
		{"one bare list element", []string{"gpus=1"}, [][]sweep.Setting{{{Key: "gpus", Value: "[1]"}}}, ""},
		{"a float", []string{"gpu_memory_utilization=0.8,0.9"},
			[][]sweep.Setting{{{Key: "gpu_memory_utilization", Value: "0.8"}, {Key: "gpu_memory_utilization", Value: "0.9"}}}, ""},
		{"unknown key, nearest named", []string{"max_num_seq=4"}, nil, "server.toml has no key max_num_seq: did you mean max_num_seqs?"},
		{"unknown key, none near", []string{"speed=fast"}, nil, "server.toml has no key speed"},
		{"wrong type", []string{"max_num_seqs=4,lots"}, nil, `max_num_seqs takes a whole number, not "lots"`},
		{"bool", []string{"enforce_eager=yes"}, nil, "enforce_eager takes true or false"},
		{"float", []string{"gpu_memory_utilization=most"}, nil, "gpu_memory_utilization takes a number"},
		{"duration", []string{"startup_timeout=soon"}, nil, "startup_timeout takes a duration"},
		{"secret", []string{"api_key=a,b"}, nil, "api_key is a secret and can't vary"},
		{"table", []string{"env=A"}, nil, "env is a table: vary it with a --vary-file"},
		{"a table stays whole", []string{`env={ A = "1", B = "2" },{ A = "3" }`},
			[][]sweep.Setting{{{Key: "env", Value: `{ A = "1", B = "2" }`}, {Key: "env", Value: `{ A = "3" }`}}}, ""},
		{"secret key file", []string{"api_key_file=/k"}, nil, "api_key_file is a secret and can't vary"},
		{"secret variable", []string{`env={ VLLM_API_KEY = "sk-X1" }`}, nil, "env VLLM_API_KEY is a secret and can't vary"},
		{"secret variable among others", []string{`env={ A = "1", HF_TOKEN = "hf-X1" }`}, nil, "env HF_TOKEN is a secret"},
		{"secret flag as a model", []string{"model=--api-key=sk-X1"}, nil, "model holds --api-key"},
		{"secret flag in extra args", []string{`extra_args=["--seed","1"],["--api-key","sk-X1"]`}, nil, "extra_args holds --api-key"},
		{"a value that reads as a flag", []string{"served_model_name=-x"}, nil, `served_model_name "-x" starts with -`},
		{"a URL's password", []string{"gpu_metrics=http://u:pw-X1@h:9400/metrics"}, nil, "gpu_metrics holds a URL with a password"},
		{"no equals", []string{"max_num_seqs"}, nil, "write KEY=V1,V2"},
		{"empty value", []string{"max_num_seqs=4,,8"}, nil, "max_num_seqs has an empty value"},
		{"twice", []string{"max_num_seqs=4", "max_num_seqs=8"}, nil, "max_num_seqs is given twice"},
		{"value twice", []string{"max_num_seqs=4,4"}, nil, "lists 4 twice"},
		{"bad list", []string{"gpus=[a]"}, nil, "gpus takes a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVary(tt.options, "--vary")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "--vary ") {
					t.Fatalf("err = %v, want one with %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "-X1") {
					t.Errorf("err = %v shows the secret", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if strings.Join(values(got[i]), "|") != strings.Join(values(tt.want[i]), "|") {
					t.Errorf("axis %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func values(ss []sweep.Setting) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Key+"="+s.Value)
	}
	return out
}

func TestGrid(t *testing.T) {
	axes, err := ParseVary([]string{"max_num_seqs=4,16", "enforce_eager=false,true", "kv_cache_dtype=fp8"}, "--vary")
	if err != nil {
		t.Fatal(err)
	}
	cs := Grid(axes)
	want := []string{"baseline",
		"max_num_seqs=4 enforce_eager=false kv_cache_dtype=fp8", "max_num_seqs=4 enforce_eager=true kv_cache_dtype=fp8",
		"max_num_seqs=16 enforce_eager=false kv_cache_dtype=fp8", "max_num_seqs=16 enforce_eager=true kv_cache_dtype=fp8"}
	if len(cs) != len(want) {
		t.Fatalf("%d configurations, want %d", len(cs), len(want))
	}
	for i, c := range cs {
		if c.Name != want[i] || c.Status != sweep.StatusPending {
			t.Errorf("config %d = %q (%s), want %q", i, c.Name, c.Status, want[i])
		}
	}
	if !cs[0].Baseline || cs[0].Folder != "baseline" || cs[1].Folder != "max_num_seqs-4_enforce_eager-false_kv_cache_dtype-fp8" {
		t.Errorf("folders %q, %q", cs[0].Folder, cs[1].Folder)
	}
	if len(cs[1].ChangesOutput) != 1 || cs[1].ChangesOutput[0] != "kv_cache_dtype" || len(cs[0].ChangesOutput) != 0 {
		t.Errorf("ChangesOutput = %v, %v", cs[0].ChangesOutput, cs[1].ChangesOutput)
	}
}

func TestFoldersAreUnique(t *testing.T) {
	cs := named([]sweep.Config{{Name: sweep.BaselineName, Baseline: true}, {Name: "a/b"}, {Name: "a b"}, {Name: "A-B"}, {Name: "../.."}})
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[strings.ToLower(c.Folder)] || c.Folder == "" || strings.ContainsAny(c.Folder, "/\\ ") || strings.HasPrefix(c.Folder, ".") {
			t.Errorf("folder %q of %q", c.Folder, c.Name)
		}
		seen[strings.ToLower(c.Folder)] = true
	}
}

func TestReadVaryFile(t *testing.T) {
	good := `
[fp8-cache]
kv_cache_dtype = "fp8"

[eager-16]
enforce_eager = true
max_num_seqs = 16

[oom]
env = { FAKEVLLM_MODE = "oom" }
`
	cs, err := ReadVaryFile("sweep.toml", good)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, c := range cs {
		got = append(got, c.Name+":"+strings.Join(values(c.Settings), ","))
	}
	want := `baseline:|fp8-cache:kv_cache_dtype="fp8"|eager-16:enforce_eager=true,max_num_seqs=16|oom:env={ "FAKEVLLM_MODE" = "oom" }`
	if strings.Join(got, "|") != want {
		t.Errorf("configs\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	for _, tt := range []struct{ text, wantErr string }{
		{"[baseline]\nmax_num_seqs = 4\n", "is the unchanged server.toml"},
		{"[a]\nmax_num_seqs = \"many\"\n", "max_num_seqs takes a whole number"},
		{"[a]\nspeed = 3\n", "server.toml has no key speed"},
		{"[a]\n", "[a] sets nothing"},
		{"", "has no configuration"},
		{"[a\n", "--vary-file sweep.toml:"},
		{"[a]\nhf_token = \"x\"\n", "hf_token is a secret"},
		{"[a]\nenv = { VLLM_API_KEY = \"sk-X1\" }\n", "env VLLM_API_KEY is a secret"},
		{"[a]\nmodel = \"--api-key=sk-X1\"\n", "model holds --api-key"},
	} {
		if _, err := ReadVaryFile("sweep.toml", tt.text); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: err = %v, want %q", tt.text, err, tt.wantErr)
		}
	}
}

const baseTOML = `model = "Qwen/Qwen3-0.6B"
max_num_seqs = 16
port = 8123
[env]
A = "1"
`

func TestApply(t *testing.T) {
	c := sweep.Config{Name: "x", Settings: []sweep.Setting{{Key: "max_num_seqs", Value: "4"}, {Key: "enforce_eager", Value: "true"}, {Key: "kv_cache_dtype", Value: `"fp8"`},
		{Key: "env", Value: `{ "B" = "2" }`}, {Key: "gpus", Value: "[0,1]"}}}
	cfg, err := Apply("server.toml", baseTOML, c)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxNumSeqs != 4 || !cfg.EnforceEager || cfg.KVCacheDType != "fp8" || cfg.Port != 8123 || cfg.Model != "Qwen/Qwen3-0.6B" ||
		cfg.Env["A"] != "1" || cfg.Env["B"] != "2" || len(cfg.GPUs) != 2 {
		t.Errorf("config = %+v", cfg)
	}
	base, err := Apply("server.toml", baseTOML, sweep.Config{Name: sweep.BaselineName})
	if err != nil || base.MaxNumSeqs != 16 || base.EnforceEager {
		t.Errorf("baseline = %+v, %v", base, err)
	}
	if _, err := Apply("server.toml", baseTOML, sweep.Config{Name: "bad", Settings: []sweep.Setting{{Key: "gpu_memory_utilization", Value: "1.5"}}}); err == nil ||
		!strings.Contains(err.Error(), "gpu_memory_utilization 1.5 is out of range") || !strings.Contains(err.Error(), "with bad") {
		t.Errorf("out of range value: err = %v", err)
	}
}

func TestResolveDropsTheBaselineTwin(t *testing.T) {
	axes, _ := ParseVary([]string{"max_num_seqs=4,16"}, "--vary")
	kept, dropped, err := Resolve("server.toml", baseTOML, Grid(axes))
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[1].Name != "max_num_seqs=4" || len(dropped) != 1 || dropped[0] != "max_num_seqs=16" {
		t.Errorf("kept %v, dropped %v", kept, dropped)
	}
}

func TestOnlyChangedOutputKeysAreMarked(t *testing.T) {
	axes, _ := ParseVary([]string{"kv_cache_dtype=auto,fp8", "max_num_seqs=4"}, "--vary")
	kept, _, err := Resolve("server.toml", baseTOML, Grid(axes))
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 3 || len(kept[1].ChangesOutput) != 0 || len(kept[2].ChangesOutput) != 1 || kept[2].ChangesOutput[0] != "kv_cache_dtype" {
		t.Errorf("configs %+v: auto is the default, fp8 changes the output", kept)
	}
}

// TestVaryFileNamesAreNames: a --vary-file table names a configuration in
// every output, so a name too long or with a bidi control is refused in
// one line that says what to do.
func TestVaryFileNamesAreNames(t *testing.T) {
	for name, table := range map[string]string{
		"1 MB": strings.Repeat("n", 1<<20), "257 runes": strings.Repeat("n", engine.MaxNameRunes+1), "RLO": "fast\u202ewols",
	} {
		_, err := ReadVaryFile("sweep.toml", "[\""+table+"\"]\nmax_num_seqs = 4\n")
		if err == nil || !strings.Contains(err.Error(), "can't name a configuration") || !strings.HasSuffix(err.Error(), "rename it") ||
			len(err.Error()) > 300 || strings.ContainsRune(err.Error(), '\u202e') {
			t.Errorf("%s: err = %.300v", name, err)
		}
	}
}
