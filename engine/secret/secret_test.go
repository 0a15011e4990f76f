package secret

import "testing"

func TestArgs(t *testing.T) {
	in := []string{"vllm", "serve", "m", "--api-key", "sm-abc", "--hf-token=hf_x", "--port", "8000"}
	got := Args(in)
	want := []string{"vllm", "serve", "m", "--api-key", Redacted, "--hf-token=" + Redacted, "--port", "8000"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Args = %q, want %q", got, want)
		}
	}
	if in[4] != "sm-abc" {
		t.Fatal("Args changed its input")
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://user:pa55@host:8000/v1": "http://user:" + Redacted + "@host:8000/v1",
		"http://user@host/":             "http://user@host/",
		"http://host:8000":              "http://host:8000",
		"not a url":                     "not a url",
		"https://a:p@ss@host/":          "https://a:" + Redacted + "@host/",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestText(t *testing.T) {
	line := "non-default args: {'api_key': ['sm-abcdef'], 'url': 'http://u:pw1234@h:1/'}"
	got := Text(line, "sm-abcdef", "", "ab")
	want := "non-default args: {'api_key': ['" + Redacted + "'], 'url': 'http://u:" + Redacted + "@h:1/'}"
	if got != want {
		t.Fatalf("Text = %q\nwant %q", got, want)
	}
}

func TestEnvValue(t *testing.T) {
	if envValue("HF_TOKEN", "hf_x") != Redacted || envValue("CUDA_VISIBLE_DEVICES", "0,1") != "0,1" || envValue("VLLM_API_KEY", "") != "" {
		t.Fatal("EnvValue misjudged a variable")
	}
}

func TestURLThatDoesNotParse(t *testing.T) {
	for in, want := range map[string]string{
		"http://u:pw@host:port/v1":    "http://u:" + Redacted + "@host:port/v1",
		"http://u:pw@h?x=a@b":         "http://u:" + Redacted + "@h?x=a@b",
		"http://h/path/user:pw@x":     "http://h/path/user:pw@x",
		"http://u:" + Redacted + "@h": "http://u:" + Redacted + "@h",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEnvValues(t *testing.T) {
	got := EnvValues([]string{"PATH=/bin", "HF_TOKEN=hf_abc", "VLLM_API_KEY=sm-1", "EMPTY_TOKEN=", "odd"})
	if len(got) != 2 || got[0] != "hf_abc" || got[1] != "sm-1" {
		t.Errorf("EnvValues = %q", got)
	}
}

// IsName is the one rule for names: variables and server.toml keys alike.
func TestIsName(t *testing.T) {
	for name, want := range map[string]bool{
		"VLLM_API_KEY": true, "HF_TOKEN": true, "db_password": true, "MY_SECRET": true,
		"api_key": true, "api_key_file": true, "hf_token": true,
		"max_num_seqs": false, "CUDA_VISIBLE_DEVICES": false, "model": false,
	} {
		if got := IsName(name); got != want {
			t.Errorf("IsName(%q) = %v, want %v", name, got, want)
		}
	}
}

// FlagIn finds a secret flag wherever a value writes it.
func TestFlagIn(t *testing.T) {
	for text, want := range map[string]string{
		"--api-key=sk-1":             "--api-key",
		`["--seed", "1", "--token"]`: "--token",
		`["--hf-token","hf_x"]`:      "--hf-token",
		"Qwen/Qwen3-0.6B":            "",
		`["--seed","1"]`:             "",
	} {
		if got := FlagIn(text); got != want {
			t.Errorf("FlagIn(%q) = %q, want %q", text, got, want)
		}
	}
}
