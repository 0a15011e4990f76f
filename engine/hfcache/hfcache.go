// Package hfcache finds models in the local Hugging Face cache and their
// config.json. It is the one locator that the launcher's advice (Suggest,
// the list of local models) and the roofline share, so that both read the
// same config.json of a model.
package hfcache

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Home is the Hugging Face home directory: $HF_HOME, else
// $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
func Home() string {
	if h := os.Getenv("HF_HOME"); h != "" {
		return h
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "huggingface")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".cache", "huggingface")
	}
	return filepath.Join(home, ".cache", "huggingface")
}

// HubDir is where Hugging Face keeps downloaded models: $HF_HUB_CACHE, else
// Home()/hub.
func HubDir() string {
	if h := os.Getenv("HF_HUB_CACHE"); h != "" {
		return h
	}
	return filepath.Join(Home(), "hub")
}

// RepoDir is the cache folder of the model id ORG/NAME in hub:
// models--ORG--NAME.
func RepoDir(hub, id string) string {
	return filepath.Join(hub, "models--"+strings.ReplaceAll(id, "/", "--"))
}

// ConfigPath finds model's config.json: in model itself when it is a folder
// that holds one, else in the cache (HubDir) in the snapshot that refs/main
// names, else in the newest snapshot. The error names where it looked.
func ConfigPath(model string) (string, error) {
	if p := filepath.Join(model, "config.json"); isFile(p) {
		return p, nil
	}
	repo := RepoDir(HubDir(), model)
	if p, ok := SnapshotConfig(repo); ok {
		return p, nil
	}
	return "", fmt.Errorf("no config.json of %s in the Hugging Face cache (%s)", model, filepath.Join(repo, "snapshots"))
}

// SnapshotConfig finds config.json in a model's cache folder: of the
// snapshot refs/main names, else of the newest snapshot.
func SnapshotConfig(repo string) (string, bool) {
	if ref, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
		if p := filepath.Join(repo, "snapshots", strings.TrimSpace(string(ref)), "config.json"); isFile(p) {
			return p, true
		}
	}
	paths, _ := filepath.Glob(filepath.Join(repo, "snapshots", "*", "config.json"))
	var best string
	var bestMod int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && (best == "" || st.ModTime().UnixNano() > bestMod) {
			best, bestMod = p, st.ModTime().UnixNano()
		}
	}
	return best, best != ""
}

// LanguageSections are the keys under which a multimodal model's
// config.json nests its language model's config, in the order tried.
var LanguageSections = []string{"text_config", "llm_config", "language_config"}

// LanguageConfig returns the config of a multimodal model's language part,
// nested in config.json's data under one of LanguageSections, and whether
// there is one.
func LanguageConfig(data []byte) (json.RawMessage, bool) {
	var outer map[string]json.RawMessage
	if json.Unmarshal(data, &outer) != nil {
		return nil, false
	}
	for _, k := range LanguageSections {
		if raw, ok := outer[k]; ok && len(raw) > 0 && raw[0] == '{' {
			return raw, true
		}
	}
	return nil, false
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
