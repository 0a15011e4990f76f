package launch

import (
	"maps"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"speedmatrix/engine/secret"
)

// EncodeConfig writes cfg as server.toml text that DecodeConfig reads back
// as the same server, so that a front end whose form edits a ServerConfig
// (the app's Launch form) can hand it to what reads server.toml (a sweep).
// Its keys come in ServerConfig's order; a key at its zero value (the
// engine's default) is left out, and so are the keys and env variables
// secret.IsName calls secrets (api_key, api_key_file, hf_token,
// VLLM_API_KEY…). They stay where they were, in memory: WithSecrets puts
// them back into a decoded config.
func EncodeConfig(cfg ServerConfig) (string, error) {
	var keys, tables strings.Builder
	v := reflect.ValueOf(cfg)
	t := v.Type()
	for i := range t.NumField() {
		key, f := t.Field(i).Tag.Get("toml"), v.Field(i)
		if key == "" || secret.IsName(key) || f.IsZero() {
			continue
		}
		if f.Kind() == reflect.Pointer {
			f = f.Elem()
		}
		value := f.Interface()
		if f.Kind() == reflect.Slice && f.Len() == 0 {
			continue
		}
		out := &keys
		if env, ok := value.(map[string]string); ok {
			if value = publicEnv(env); len(value.(map[string]string)) == 0 {
				continue
			}
			out = &tables // a table goes after every plain key
		}
		if err := toml.NewEncoder(out).Encode(map[string]any{key: value}); err != nil {
			return "", err
		}
	}
	return keys.String() + tables.String(), nil
}

// publicEnv is env without its secret variables.
func publicEnv(env map[string]string) map[string]string {
	out := maps.Clone(env)
	maps.DeleteFunc(out, func(k, _ string) bool { return secret.IsName(k) })
	return out
}

// WithSecrets is cfg (decoded from EncodeConfig's text, perhaps with some
// keys changed) with the secrets of from put back: its API key (or key
// file), HF token and secret env variables.
func WithSecrets(cfg, from ServerConfig) ServerConfig {
	cfg.APIKey, cfg.APIKeyFile, cfg.HFToken = from.APIKey, from.APIKeyFile, from.HFToken
	hidden := maps.Clone(from.Env)
	maps.DeleteFunc(hidden, func(k, _ string) bool { return !secret.IsName(k) })
	if len(hidden) > 0 {
		env := maps.Clone(cfg.Env)
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, hidden)
		cfg.Env = env
	}
	return cfg
}
