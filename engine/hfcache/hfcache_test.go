package hfcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHubDir(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HOME", "/data/hf")
	if got := HubDir(); got != "/data/hf/hub" {
		t.Errorf("HubDir with HF_HOME = %s", got)
	}
	t.Setenv("HF_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if got := HubDir(); got != "/xdg/huggingface/hub" {
		t.Errorf("HubDir with XDG_CACHE_HOME = %s", got)
	}
	t.Setenv("HF_HUB_CACHE", "/hub")
	if got := HubDir(); got != "/hub" {
		t.Errorf("HubDir with HF_HUB_CACHE = %s", got)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConfigPath: the snapshot refs/main names wins over a newer one (the
// roofline used to take the newest, Suggest refs/main); without refs/main
// the newest; a local folder first; a missing model names where it looked.
func TestConfigPath(t *testing.T) {
	hub := t.TempDir()
	t.Setenv("HF_HUB_CACHE", hub)
	repo := RepoDir(hub, "org/model")
	write(t, filepath.Join(repo, "refs", "main"), "main111\n")
	write(t, filepath.Join(repo, "snapshots", "main111", "config.json"), "{}")
	newer := filepath.Join(repo, "snapshots", "new222", "config.json")
	write(t, newer, "{}")
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(newer, future, future); err != nil {
		t.Fatal(err)
	}
	if p, err := ConfigPath("org/model"); err != nil || !strings.Contains(p, "main111") {
		t.Errorf("ConfigPath = %s, %v; want refs/main's snapshot", p, err)
	}
	if err := os.Remove(filepath.Join(repo, "refs", "main")); err != nil {
		t.Fatal(err)
	}
	if p, err := ConfigPath("org/model"); err != nil || !strings.Contains(p, "new222") {
		t.Errorf("ConfigPath without refs/main = %s, %v; want the newest snapshot", p, err)
	}
	local := t.TempDir()
	write(t, filepath.Join(local, "config.json"), "{}")
	if p, err := ConfigPath(local); err != nil || p != filepath.Join(local, "config.json") {
		t.Errorf("ConfigPath of a folder = %s, %v", p, err)
	}
	if _, err := ConfigPath("org/missing"); err == nil || !strings.Contains(err.Error(), "no config.json of org/missing in the Hugging Face cache ("+hub) {
		t.Errorf("missing model: %v", err)
	}
}

func TestLanguageConfig(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"hidden_size": 1}`, ""},
		{`{"text_config": {"hidden_size": 2}}`, `{"hidden_size": 2}`},
		{`{"llm_config": {"hidden_size": 3}}`, `{"hidden_size": 3}`},
		{`{"language_config": {"hidden_size": 4}, "vision_config": {}}`, `{"hidden_size": 4}`},
		{`{"text_config": null}`, ""},
		{`not json`, ""},
	} {
		raw, ok := LanguageConfig([]byte(tc.data))
		if string(raw) != tc.want || ok != (tc.want != "") {
			t.Errorf("LanguageConfig(%s) = %s, %v; want %s", tc.data, raw, ok, tc.want)
		}
	}
}
