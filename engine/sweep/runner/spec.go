package runner

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/runs"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/sweep"
)

// keyKinds maps every server.toml key to the Go type it decodes into,
// read from launch.ServerConfig's tags: the one list of keys a sweep may
// vary, so that a key added there can be varied at once.
var keyKinds = func() map[string]reflect.Type {
	m := map[string]reflect.Type{}
	t := reflect.TypeFor[launch.ServerConfig]()
	for i := range t.NumField() {
		if k := t.Field(i).Tag.Get("toml"); k != "" {
			m[k] = t.Field(i).Type
		}
	}
	return m
}()

// outputKeys change what the model answers, not only how fast: a
// configuration that sets one is labelled in the summary.
var outputKeys = launch.OutputKeys

// ParseVary reads the --vary options ("max_num_seqs=4,16") into the axes
// of a grid, each a key and its values written as TOML. flag names the
// option in errors ("--vary").
func ParseVary(options []string, flag string) ([][]sweep.Setting, error) {
	var axes [][]sweep.Setting
	seen := map[string]bool{}
	for _, opt := range options {
		key, list, ok := strings.Cut(opt, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.TrimSpace(list) == "" {
			return nil, fmt.Errorf("%s %q: write KEY=V1,V2 with a server.toml key, e.g. %s max_num_seqs=64,128", flag, opt, flag)
		}
		if seen[key] {
			return nil, fmt.Errorf("%s %s is given twice: list all its values in one %s %s=V1,V2", flag, key, flag, key)
		}
		seen[key] = true
		values := splitValues(list)
		if len(values) > sweep.HardMaxConfigs { // before each is checked: a list from a file may be huge
			return nil, &SizeError{N: len(values)}
		}
		var axis []sweep.Setting
		for _, v := range values {
			value, err := tomlValue(key, v)
			if err != nil {
				// The key, not the option: a refused value may hold a secret.
				return nil, fmt.Errorf("%s %s: %w", flag, key, err)
			}
			s := sweep.Setting{Key: key, Value: value}
			if slices.Contains(axis, s) {
				return nil, fmt.Errorf("%s %s lists %s twice: give each value once", flag, opt, v)
			}
			axis = append(axis, s)
		}
		axes = append(axes, axis)
	}
	return axes, nil
}

// splitValues splits a --vary list at the commas outside brackets, braces
// and quotes, so that a list value ("gpus=[0],[0,1]") or a table stays
// whole.
func splitValues(list string) []string {
	var out []string
	depth, quote, start := 0, rune(0), 0
	for i, r := range list {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '[' || r == '{':
			depth++
		case r == ']' || r == '}':
			depth--
		case r == ',' && depth == 0:
			out = append(out, strings.TrimSpace(list[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

// tomlValue checks that v suits key's type and writes it as TOML: a
// string key takes bare words ("fp8"), a list key a TOML array ("[0,1]")
// or one element. Nothing secret may vary (secretProblem): each
// configuration's settings are written into sweep.json, its name and its
// folder's name, and reach the server's command line.
func tomlValue(key, v string) (string, error) {
	t, ok := keyKinds[key]
	switch {
	case !ok:
		return "", unknownKey(key)
	case v == "":
		return "", fmt.Errorf("%s has an empty value: list values between commas", key)
	}
	if err := secretProblem(key, v); err != nil {
		return "", err
	}
	bad := func(kind, example string) error {
		return fmt.Errorf("%s takes %s, not %q: e.g. %s=%s", key, kind, v, key, example)
	}
	switch {
	case t == reflect.TypeFor[time.Duration]():
		if _, err := time.ParseDuration(strings.Trim(v, `"`)); err != nil {
			return "", bad("a duration", "10m")
		}
		return strconv.Quote(strings.Trim(v, `"`)), nil
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return "", bad("a whole number", "16")
		}
		return v, nil
	case t.Kind() == reflect.Float64:
		if f, err := strconv.ParseFloat(v, 64); err != nil || f != f {
			return "", bad("a number", "0.9")
		}
		return v, nil
	case t.Kind() == reflect.Bool || (t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Bool):
		if v != "true" && v != "false" {
			return "", bad("true or false", "true,false")
		}
		return v, nil
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Int:
		if _, err := strconv.Atoi(v); err != nil {
			return "", bad("a whole number", "2")
		}
		return v, nil
	case t.Kind() == reflect.String:
		if strings.HasPrefix(v, `"`) {
			var h struct{ V string }
			if _, err := toml.Decode("v = "+v, &h); err != nil {
				return "", bad("a string", "fp8")
			}
			v = h.V
		}
		if strings.HasPrefix(v, "-") {
			return "", fmt.Errorf("%s %q starts with -, which the server would read as a flag: give a value that doesn't", key, v)
		}
		return strconv.Quote(v), nil
	case t.Kind() == reflect.Slice:
		return listValue(key, t, v)
	case t.Kind() == reflect.Map && strings.HasPrefix(v, "{"):
		return tableValue(key, v)
	}
	return "", fmt.Errorf("%s is a table: vary it with a --vary-file, whose tables can set it", key)
}

// secretProblem is why key = v can't vary, or nil: a key named like a
// secret (secret.IsName), or a value that holds a secret flag
// (--api-key=K) or a URL's password. It names the key and the flag, never
// the value.
func secretProblem(key, v string) error {
	switch {
	case secret.IsName(key):
		return fmt.Errorf("%s is a secret and can't vary: each configuration's settings are written into sweep.json", key)
	case secret.FlagIn(v) != "":
		return fmt.Errorf("%s holds %s, whose value is a secret that would reach the server's command line and sweep.json: set api_key or hf_token in server.toml instead", key, secret.FlagIn(v))
	case secret.Text(v) != v:
		return fmt.Errorf("%s holds a URL with a password, which sweep.json would keep: give the URL without it", key)
	}
	return nil
}

// tableValue is a table key's value (env): an inline table of strings,
// none of them named like a secret.
func tableValue(key, v string) (string, error) {
	var h struct{ V map[string]string }
	if _, err := toml.Decode("v = "+v, &h); err != nil {
		// Not v itself: one of its values may be a secret.
		return "", fmt.Errorf("%s takes a table of strings: e.g. %s = { NAME = \"value\" } in a --vary-file", key, key)
	}
	for _, name := range slices.Sorted(maps.Keys(h.V)) {
		if secret.IsName(name) {
			return "", fmt.Errorf("%s %s is a secret and can't vary: each configuration's settings are written into sweep.json; set it in server.toml's %s", key, name, key)
		}
	}
	return v, nil
}

// listValue is a list key's value: a TOML array, or one bare element.
func listValue(key string, t reflect.Type, v string) (string, error) {
	if !strings.HasPrefix(v, "[") {
		if t.Elem().Kind() == reflect.String {
			v = "[" + strconv.Quote(v) + "]"
		} else {
			v = "[" + v + "]"
		}
	}
	var h map[string]any
	_, err := toml.Decode("v = "+v, &h)
	list, isList := h["v"].([]any)
	for _, e := range list {
		switch e.(type) {
		case int64:
			isList = isList && t.Elem().Kind() == reflect.Int
		case string:
			isList = isList && t.Elem().Kind() == reflect.String
		default:
			isList = false
		}
	}
	if err != nil || !isList {
		example := "[0,1]"
		if t.Elem().Kind() == reflect.String {
			example = `["--flag","value"]`
		}
		return "", fmt.Errorf("%s takes a list, not %q: e.g. %s=%s", key, v, key, example)
	}
	return v, nil
}

// unknownKey is the error of a key server.toml does not have, naming the
// nearest one.
func unknownKey(key string) error {
	best, bestD := "", 4
	for k := range keyKinds {
		if d := editDistance(key, k); d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if best != "" {
		return fmt.Errorf("server.toml has no key %s: did you mean %s?", key, best)
	}
	return fmt.Errorf("server.toml has no key %s: vary one of its snake_case keys, e.g. max_num_seqs", key)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Grid is the configurations of a grid: the baseline, then the product of
// the axes in order (the last axis changes fastest).
func Grid(axes [][]sweep.Setting) []sweep.Config {
	combos := [][]sweep.Setting{nil}
	for _, axis := range axes {
		var next [][]sweep.Setting
		for _, c := range combos {
			for _, s := range axis {
				next = append(next, append(slices.Clone(c), s))
			}
		}
		combos = next
	}
	cs := []sweep.Config{{Name: sweep.BaselineName, Baseline: true}}
	for _, c := range combos {
		if len(c) > 0 {
			cs = append(cs, sweep.Config{Name: settingsName(c), Settings: c})
		}
	}
	return named(cs)
}

// settingsName names a configuration by its settings, strings bare:
// "max_num_seqs=4 kv_cache_dtype=fp8".
func settingsName(ss []sweep.Setting) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		v := s.Value
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		}
		parts[i] = s.Key + "=" + v
	}
	return strings.Join(parts, " ")
}

// named gives every configuration a name of its own (every output finds
// its run by its name: "x (2)" for a second "x"), its folder, unique and
// safe on any file system, and the output keys it sets (Resolve then keeps
// those whose value differs from the baseline's).
func named(cs []sweep.Config) []sweep.Config {
	used, names := map[string]bool{}, map[string]bool{}
	for i := range cs {
		name := cs[i].Name
		for n := 2; names[name]; n++ {
			name = fmt.Sprintf("%s (%d)", cs[i].Name, n)
		}
		cs[i].Name, names[name] = name, true
		base := strings.TrimLeft(runs.SafeName(strings.NewReplacer("=", "-", " ", "_").Replace(cs[i].Name)), ".-")
		if base == "" {
			base = "config"
		}
		f := base
		for n := 2; used[strings.ToLower(f)]; n++ {
			f = fmt.Sprintf("%s-%d", base, n)
		}
		used[strings.ToLower(f)] = true
		cs[i].Folder = f
		cs[i].Status = sweep.StatusPending
		cs[i].ChangesOutput = nil
		for _, s := range cs[i].Settings {
			if slices.Contains(outputKeys, s.Key) {
				cs[i].ChangesOutput = append(cs[i].ChangesOutput, s.Key)
			}
		}
	}
	return cs
}

// ReadVaryFile reads a --vary-file: one TOML table per configuration,
// named as the summary will name it, setting server.toml keys:
//
//	[fp8-cache]
//	kv_cache_dtype = "fp8"
//
// The baseline comes first, unchanged, as with --vary.
func ReadVaryFile(path, text string) ([]sweep.Config, error) {
	var tables map[string]map[string]toml.Primitive
	md, err := toml.Decode(text, &tables)
	if err != nil {
		return nil, fmt.Errorf("--vary-file %s: %w", path, err)
	}
	cs := []sweep.Config{{Name: sweep.BaselineName, Baseline: true}}
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) != 2 {
			continue
		}
		name, key := k[0], k[1]
		if engine.BoundName(name) != name {
			return nil, fmt.Errorf("--vary-file %s: the table [%s] (%d characters) can't name a configuration: a name has at most %d characters and no control characters; rename it",
				path, engine.BoundText(name, 40), utf8.RuneCountInString(name), engine.MaxNameRunes)
		}
		if strings.EqualFold(name, sweep.BaselineName) {
			return nil, fmt.Errorf("--vary-file %s: [%s] is the unchanged server.toml, always measured first: name your table otherwise", path, name)
		}
		if !seen[name] {
			seen[name] = true
			cs = append(cs, sweep.Config{Name: name})
		}
		var v any
		if err := md.PrimitiveDecode(tables[name][key], &v); err != nil {
			return nil, fmt.Errorf("--vary-file %s: [%s] %s: %w", path, name, key, err)
		}
		value, err := encodeValue(v)
		if err == nil {
			_, err = tomlValue(key, value)
		}
		if err != nil {
			return nil, fmt.Errorf("--vary-file %s: [%s]: %w", path, name, err)
		}
		c := &cs[len(cs)-1]
		c.Settings = append(c.Settings, sweep.Setting{Key: key, Value: value})
	}
	for _, k := range md.Keys() {
		if len(k) == 1 && len(tables[k[0]]) == 0 {
			return nil, fmt.Errorf("--vary-file %s: [%s] sets nothing: give it the server.toml keys it changes", path, k[0])
		}
	}
	if len(cs) == 1 {
		return nil, fmt.Errorf("--vary-file %s has no configuration: write one [name] table per configuration, with the server.toml keys it changes", path)
	}
	return named(cs), nil
}

// encodeValue writes one decoded TOML value back as TOML; a table as an
// inline one ({ A = "1", B = "2" }).
func encodeValue(v any) (string, error) {
	if m, ok := v.(map[string]any); ok {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			e, err := encodeValue(m[k])
			if err != nil {
				return "", err
			}
			parts = append(parts, strconv.Quote(k)+" = "+e)
		}
		return "{ " + strings.Join(parts, ", ") + " }", nil
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	text := strings.TrimSpace(b.String())
	out, ok := strings.CutPrefix(text, "v = ")
	if !ok {
		return "", errors.New("a table can't be a value here: set its keys one by one")
	}
	return out, nil
}
