package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// serveArgs is a `vllm serve` command line as the stand-in reads it
// (`speedmatrix sim serve MODEL [flags]`). Zero values are "not given".
type serveArgs struct {
	model, served, host, apiKey       string
	port, maxModelLen, maxNumSeqs     int
	maxBatchedTokens, tensorParallel  int
	kvCacheMemoryBytes, maxLogprobs   int
	gpuMemoryUtilization              float64
	kvCacheDType, dtype, quantization string
	enforceEager, noPrefixCaching     bool
	seed                              int64
	simProfile                        string
	help                              bool
	given                             []givenArg // every flag in order, for the non-default args line
	ignored                           []string   // flags the speed model does not read, as given
	positional                        []string
}

// givenArg is one flag of the command line: vLLM's name for it
// (max_num_seqs) and its value as Python would print it.
type givenArg struct{ key, value string }

// argKind is the type of a flag's value, as argparse checks it.
type argKind int

const (
	boolArg argKind = iota
	intArg
	floatArg
	strArg
)

// serveFlag is one flag of `vllm serve` that the stand-in knows: its type,
// where its value goes, and whether the speed model reads it (a flag it
// does not is named in the "stand-in ignores" line).
type serveFlag struct {
	kind    argKind
	set     func(a *serveArgs, v string) // v has passed kind's check
	modeled bool
}

// setStr, setInt and setBool store a checked value in a field of serveArgs.
func setStr(field func(*serveArgs) *string) func(*serveArgs, string) {
	return func(a *serveArgs, v string) { *field(a) = v }
}

func setInt(field func(*serveArgs) *int) func(*serveArgs, string) {
	return func(a *serveArgs, v string) { *field(a), _ = strconv.Atoi(strings.TrimSpace(v)) }
}

func setBool(field func(*serveArgs) *bool) func(*serveArgs, string) {
	return func(a *serveArgs, v string) { *field(a) = v == "True" }
}

// ignored is the setter of a flag whose value nothing reads.
func ignored(*serveArgs, string) {}

// serveFlags are the flags engine/launch's serveArgs can emit, and a few
// more that sweeps vary.
var serveFlags = map[string]serveFlag{
	"--model":                  {strArg, setStr(func(a *serveArgs) *string { return &a.model }), true},
	"--host":                   {strArg, setStr(func(a *serveArgs) *string { return &a.host }), true},
	"--port":                   {intArg, setInt(func(a *serveArgs) *int { return &a.port }), true},
	"--api-key":                {strArg, setStr(func(a *serveArgs) *string { return &a.apiKey }), true},
	"--served-model-name":      {strArg, setStr(func(a *serveArgs) *string { return &a.served }), true},
	"--max-model-len":          {intArg, setInt(func(a *serveArgs) *int { return &a.maxModelLen }), true},
	"--max-num-seqs":           {intArg, setInt(func(a *serveArgs) *int { return &a.maxNumSeqs }), true},
	"--max-num-batched-tokens": {intArg, setInt(func(a *serveArgs) *int { return &a.maxBatchedTokens }), true},
	"--gpu-memory-utilization": {floatArg, func(a *serveArgs, v string) {
		a.gpuMemoryUtilization, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
	}, true},
	"--kv-cache-memory-bytes": {intArg, setInt(func(a *serveArgs) *int { return &a.kvCacheMemoryBytes }), true},
	"--kv-cache-dtype":        {strArg, setStr(func(a *serveArgs) *string { return &a.kvCacheDType }), true},
	"--enforce-eager":         {boolArg, setBool(func(a *serveArgs) *bool { return &a.enforceEager }), true},
	"--enable-prefix-caching": {boolArg, func(a *serveArgs, v string) { a.noPrefixCaching = v == "False" }, true},
	"--seed": {intArg, func(a *serveArgs, v string) {
		a.seed, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	}, true},
	"--sim-profile":             {strArg, setStr(func(a *serveArgs) *string { return &a.simProfile }), true},
	"--max-logprobs":            {intArg, setInt(func(a *serveArgs) *int { return &a.maxLogprobs }), true},
	"--dtype":                   {strArg, setStr(func(a *serveArgs) *string { return &a.dtype }), false},
	"--quantization":            {strArg, setStr(func(a *serveArgs) *string { return &a.quantization }), false},
	"--tensor-parallel-size":    {intArg, setInt(func(a *serveArgs) *int { return &a.tensorParallel }), false},
	"--async-scheduling":        {boolArg, ignored, false},
	"--trust-remote-code":       {boolArg, ignored, false},
	"--enable-expert-parallel":  {boolArg, ignored, false},
	"--enable-auto-tool-choice": {boolArg, ignored, false},
}

// argError is argparse's complaint about a command line, which ends
// `vllm serve` with exit status 2.
type argError struct{ msg string }

func (e *argError) Error() string { return "error: " + e.msg }

// parseServeArgs reads a `vllm serve` command line (after `serve`) as
// vLLM's argparse does: `--flag value` or `--flag=value`, `--no-FLAG` for
// a boolean flag, the model as the one positional argument. A flag it does
// not know is accepted with the value that follows it, if any.
func parseServeArgs(argv []string) (serveArgs, error) {
	var a serveArgs
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		if w == "-h" || w == "--help" {
			a.help = true
			continue
		}
		if !strings.HasPrefix(w, "--") {
			a.positional = append(a.positional, w)
			continue
		}
		name, value, hasValue := strings.Cut(w, "=")
		fl, known, negated := lookupServeFlag(name)
		if !known {
			if !hasValue && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				value, hasValue = argv[i+1], true
				i++
			}
			a.ignore(name, value, hasValue)
			continue
		}
		if fl.kind == boolArg {
			if hasValue {
				return a, &argError{fmt.Sprintf("argument %s: ignored explicit argument '%s'", name, value)}
			}
			value = pyBoolWord(!negated)
		} else if !hasValue {
			if i+1 >= len(argv) || strings.HasPrefix(argv[i+1], "--") {
				return a, &argError{"argument " + name + ": expected one argument"}
			}
			i++
			value = argv[i]
		}
		if err := checkArgValue(name, fl.kind, value); err != nil {
			return a, err
		}
		a.take(name, fl, value)
	}
	if !kvDTypeModeled(a.kvCacheDType) {
		a.addIgnored("--kv-cache-dtype " + a.kvCacheDType)
	}
	return a, a.checkPositional()
}

// lookupServeFlag finds name, or the boolean flag that --no-NAME negates.
func lookupServeFlag(name string) (fl serveFlag, known, negated bool) {
	if fl, ok := serveFlags[name]; ok {
		return fl, true, false
	}
	if rest, ok := strings.CutPrefix(name, "--no-"); ok {
		if fl, ok := serveFlags["--"+rest]; ok && fl.kind == boolArg {
			return fl, true, true
		}
	}
	return serveFlag{}, false, false
}

// take records a known flag's value.
func (a *serveArgs) take(name string, fl serveFlag, value string) {
	fl.set(a, value)
	if !fl.modeled {
		shown := name
		if fl.kind != boolArg {
			shown += " " + value
		}
		a.addIgnored(shown)
	}
	key := pyKey(strings.TrimPrefix(strings.TrimPrefix(name, "--"), "no-"))
	switch {
	case name == "--api-key":
		value = "['<redacted>']" // vLLM prints the key; the stand-in never does
	case name == "--served-model-name":
		value = "['" + value + "']"
	case fl.kind == strArg:
		value = "'" + value + "'"
	}
	a.given = append(a.given, givenArg{key, value})
}

// ignore records a flag the stand-in does not know.
func (a *serveArgs) ignore(name, value string, hasValue bool) {
	shown, py := name, "True"
	if hasValue {
		shown, py = name+" "+value, "'"+value+"'"
	}
	a.addIgnored(shown)
	a.given = append(a.given, givenArg{pyKey(strings.TrimPrefix(name, "--")), py})
}

// addIgnored names a flag once in the ignored list.
func (a *serveArgs) addIgnored(shown string) {
	if !slices.Contains(a.ignored, shown) {
		a.ignored = append(a.ignored, shown)
	}
}

// checkPositional takes the model from the one positional argument.
func (a *serveArgs) checkPositional() error {
	switch {
	case len(a.positional) > 1:
		return &argError{"unrecognized arguments: " + strings.Join(a.positional[1:], " ")}
	case len(a.positional) == 1 && a.model == "":
		a.model = a.positional[0]
	case len(a.positional) == 0 && a.model == "" && !a.help:
		return &argError{"the following arguments are required: model_tag"}
	}
	return nil
}

// checkArgValue is argparse's type check, and the stand-in's own of values
// that can only be positive.
func checkArgValue(name string, kind argKind, v string) error {
	switch kind {
	case intArg:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return &argError{fmt.Sprintf("argument %s: invalid int value: '%s'", name, v)}
		}
		if n <= 0 && name != "--seed" {
			return &argError{fmt.Sprintf("argument %s: %d is not a positive number (the stand-in takes none)", name, n)}
		}
	case floatArg:
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return &argError{fmt.Sprintf("argument %s: invalid float value: '%s'", name, v)}
		}
		if x <= 0 {
			return &argError{fmt.Sprintf("argument %s: %s is not a positive fraction (the stand-in takes none)", name, v)}
		}
	}
	return nil
}

// pyKey is vLLM's name for a flag: --max-num-seqs is max_num_seqs.
func pyKey(flag string) string { return strings.ReplaceAll(flag, "-", "_") }

// pyBoolWord writes b as Python does.
func pyBoolWord(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
