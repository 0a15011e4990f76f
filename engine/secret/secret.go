// Package secret is the one home of what counts as a secret (API keys,
// tokens, URL passwords) and of how each is hidden wherever it is shown:
// command lines, environments, URLs and free text such as log lines.
package secret

import (
	"slices"
	"strings"
)

// Redacted replaces a secret's value wherever it is shown.
const Redacted = "<redacted>"

// flags are the command-line flags whose value is a secret.
var flags = []string{"--api-key", "--hf-token", "--token"}

// IsFlag reports whether a command-line flag's value is a secret.
func IsFlag(flag string) bool { return slices.Contains(flags, flag) }

// FlagIn is the first secret flag written anywhere in text ("--api-key"
// in `--api-key=sk-1`, or in a TOML list `["--api-key", "sk-1"]`), or ""
// when there is none: a value that holds one would carry a secret onto a
// command line, or into whatever shows the value.
func FlagIn(text string) string {
	for _, f := range flags {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

// IsName reports whether a name says that its value is a secret: an
// environment variable (VLLM_API_KEY, HF_TOKEN), a server.toml key
// (api_key, hf_token, api_key_file) or any other setting's name with KEY,
// TOKEN, SECRET or PASSWORD in it, in any case. It is the one rule: what it
// calls a secret is never varied, written to a file or shown.
func IsName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD"} {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}

// Args is argv with the value of every secret flag (`--api-key K` and
// `--api-key=K`) replaced by Redacted; argv itself is not changed.
func Args(argv []string) []string {
	out := make([]string, len(argv))
	redactNext := false
	for i, w := range argv {
		switch {
		case redactNext:
			w = Redacted
			redactNext = false
		case IsFlag(w):
			redactNext = true
		default:
			if flag, _, ok := strings.Cut(w, "="); ok && strings.HasPrefix(flag, "--") && IsFlag(flag) {
				w = flag + "=" + Redacted
			}
		}
		out[i] = w
	}
	return out
}

// envValue is v, or Redacted when the variable name says it holds a secret.
func envValue(name, v string) string {
	if v != "" && IsName(name) {
		return Redacted
	}
	return v
}

// URL is raw with a password in its user-info replaced by Redacted
// ("http://user:<redacted>@host/"); a user name alone is kept. It works on
// the text, so a URL that does not parse (a bad port) is hidden too; text
// without "scheme://user:password@" is returned unchanged.
func URL(raw string) string {
	scheme := strings.Index(raw, "://")
	if scheme < 0 {
		return raw
	}
	rest := raw[scheme+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return raw
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return raw
	}
	return raw[:scheme+3] + user + ":" + Redacted + rest[at:]
}

// EnvValues are the values of the variables of env ("NAME=value" entries)
// whose names say they hold a secret, for Text to hide wherever a process
// with that environment might print them.
func EnvValues(env []string) []string {
	var out []string
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" && IsName(k) {
			out = append(out, v)
		}
	}
	return out
}

// Text is s with every known secret value replaced by Redacted, and every
// URL password in it hidden. Empty and very short values (under 4
// characters) are ignored: they would match ordinary text.
func Text(s string, known ...string) string {
	for _, k := range known {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, Redacted)
		}
	}
	if strings.Contains(s, "@") && strings.Contains(s, "://") {
		s = urlsIn(s)
	}
	return s
}

// urlsIn hides the password of every URL in free text.
func urlsIn(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		end := i + 3
		for end < len(s) && !isURLEnd(s[end]) {
			end++
		}
		b.WriteString(s[:start])
		b.WriteString(URL(s[start:end]))
		s = s[end:]
	}
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

func isURLEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '"' || c == '\'' || c == '<' || c == '>' || c == ')' || c == ']' || c == '}' || c == ','
}

// Env picks from environ ("K=V" entries, as os.Environ gives them) the
// variables keep selects, their secret values redacted.
func Env(environ []string, keep func(name string) bool) map[string]string {
	env := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && keep(k) {
			env[k] = Text(envValue(k, v))
		}
	}
	return env
}
