package runner

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"speedmatrix/engine/launch"
	"speedmatrix/engine/sweep"
)

// Apply is the server configuration c describes: the server.toml text
// (base, read from path) with c's settings in place of its own values,
// decoded and checked as launch.LoadConfig checks a file.
func Apply(path, base string, c sweep.Config) (launch.ServerConfig, error) {
	if len(c.Settings) == 0 {
		return launch.DecodeConfig(path, base)
	}
	var m map[string]any
	if _, err := toml.Decode(base, &m); err != nil {
		return launch.ServerConfig{}, fmt.Errorf("read server config %s: %w", path, err)
	}
	for _, s := range c.Settings {
		var h map[string]any
		if _, err := toml.Decode("v = "+s.Value, &h); err != nil {
			return launch.ServerConfig{}, fmt.Errorf("configuration %s: %s = %s is not a TOML value: %w", c.Name, s.Key, s.Value, err)
		}
		// A table (env) adds to server.toml's, key by key.
		if add, ok := h["v"].(map[string]any); ok {
			if old, ok := m[s.Key].(map[string]any); ok {
				merged := maps.Clone(old)
				maps.Copy(merged, add)
				add = merged
			}
			m[s.Key] = add
			continue
		}
		m[s.Key] = h["v"]
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(m); err != nil {
		return launch.ServerConfig{}, fmt.Errorf("configuration %s: %w", c.Name, err)
	}
	cfg, err := launch.DecodeConfig(path+" with "+c.Name, b.String())
	if err != nil {
		return launch.ServerConfig{}, err
	}
	return cfg, nil
}

// Resolve checks every configuration against server.toml (base, read from
// path) before anything starts: each must decode and validate. A
// configuration whose server would be the baseline's is dropped: it is
// measured once, as the baseline. dropped names those.
func Resolve(path, base string, cs []sweep.Config) (kept []sweep.Config, dropped []string, err error) {
	baseline, err := Apply(path, base, sweep.Config{Name: sweep.BaselineName})
	if err != nil {
		return nil, nil, err
	}
	for _, c := range cs {
		cfg, err := Apply(path, base, c)
		if err != nil {
			return nil, nil, err
		}
		if !c.Baseline && reflect.DeepEqual(cfg, baseline) {
			dropped = append(dropped, c.Name)
			continue
		}
		c.ChangesOutput = changesOutput(cfg, baseline)
		kept = append(kept, c)
	}
	return kept, dropped, nil
}

// changesOutput lists the keys of outputKeys whose value in cfg is not the
// baseline's: settings that change what the model answers. "auto" is
// vLLM's default where the baseline leaves the key out.
func changesOutput(cfg, baseline launch.ServerConfig) []string {
	var keys []string
	a, b := reflect.ValueOf(cfg), reflect.ValueOf(baseline)
	t := a.Type()
	for i := range t.NumField() {
		key := t.Field(i).Tag.Get("toml")
		if !slices.Contains(outputKeys, key) {
			continue
		}
		va, vb := a.Field(i).Interface(), b.Field(i).Interface()
		if va == vb || (va == "auto" && vb == "") || (va == "" && vb == "auto") {
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// Changes are the settings that make the server.toml text from into to:
// each key to sets otherwise, with its value there, then each key from
// sets and to leaves out, with no value; by key, in order. A resume that
// is given another server.toml than the sweep began with says so with
// them. Text that is not TOML is an error.
func Changes(from, to string) ([]sweep.Setting, error) {
	var a, b map[string]any
	if _, err := toml.Decode(from, &a); err != nil {
		return nil, err
	}
	if _, err := toml.Decode(to, &b); err != nil {
		return nil, err
	}
	var set, unset []sweep.Setting
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if old, ok := a[k]; ok && reflect.DeepEqual(old, b[k]) {
			continue
		}
		v, err := encodeValue(b[k])
		if err != nil {
			return nil, err
		}
		set = append(set, sweep.Setting{Key: k, Value: v})
	}
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if _, ok := b[k]; !ok {
			unset = append(unset, sweep.Setting{Key: k})
		}
	}
	return append(set, unset...), nil
}
