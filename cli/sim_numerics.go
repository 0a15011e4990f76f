package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"speedmatrix/engine/sim"
)

// numericsFlags name the flag of each sim.Numerics field, as vLLM names
// them (the stand-in takes vLLM's; `speedmatrix sim` the same words).
var numericsFlags = map[string]string{
	"DType": "--dtype", "KVCacheDType": "--kv-cache-dtype", "Quantization": "--quantization",
}

// checkNumerics names the first numerics flag whose value vLLM does not
// accept: in argparse's words when argparse (the stand-in answers as
// vLLM's command line does), else in ours.
func checkNumerics(n sim.Numerics, argparse bool) error {
	var ne *sim.NumericsError
	err := n.Validate()
	if !errors.As(err, &ne) {
		return err
	}
	flagName := numericsFlags[ne.Field]
	if !argparse {
		return fmt.Errorf("%s %q is not one vLLM accepts: use one of %s", flagName, ne.Value, strings.Join(ne.Want, ", "))
	}
	return &argError{fmt.Sprintf("argument %s: invalid choice: '%s' (choose from '%s')", flagName, ne.Value, strings.Join(ne.Want, "', '"))}
}

// maxLogprobsRange says what --max-logprobs the simulator serves.
var maxLogprobsRange = fmt.Sprintf("the simulator serves 1 to %d logprobs a token (vLLM's default is %d)", sim.MaxLogprobsLimit, sim.DefaultMaxLogprobs)

// maxLogprobsOK reports whether the simulator serves --max-logprobs n.
func maxLogprobsOK(n int) bool { return n >= 1 && n <= sim.MaxLogprobsLimit }

// simNumericsFlags adds `speedmatrix sim`'s flags for what the served
// model computes to fs.
func simNumericsFlags(fs *flag.FlagSet, n *sim.Numerics, maxLogprobs *int, jitter *string) {
	fs.StringVar(&n.DType, "dtype", "", "vLLM's --dtype: float32 or float16 drift a little from the reference (bfloat16)")
	fs.StringVar(&n.KVCacheDType, "kv-cache-dtype", "", "vLLM's --kv-cache-dtype: fp8… drifts, more at longer contexts; a 4-bit cache (int4_per_token_head, nvfp4) more")
	fs.StringVar(&n.Quantization, "quantization", "", "vLLM's --quantization: fp8 drifts a little, awq, gptq, modelopt_fp4 more, at every context")
	fs.IntVar(maxLogprobs, "max-logprobs", sim.DefaultMaxLogprobs, fmt.Sprintf("vLLM's --max-logprobs: the most logprobs a request may ask for a token (1 to %d)", sim.MaxLogprobsLimit))
	fs.StringVar(jitter, "batch-jitter", "on", "a request's logprobs differ a little when others share its steps, as on GPUs: on, or off")
}

// numericsNote describes what the served model computes, for the banner
// and the stand-in's log; "" for the reference.
func numericsNote(n sim.Numerics) string {
	var parts []string
	for _, p := range [][2]string{{"dtype", n.DType}, {"kv-cache-dtype", n.KVCacheDType}, {"quantization", n.Quantization}} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+p[1])
		}
	}
	if !n.Lossy() {
		return ""
	}
	return strings.Join(parts, ", ") + " (its logprobs and text drift from the reference's, as METHODOLOGY's simulator section calibrates)"
}
