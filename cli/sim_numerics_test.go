package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"speedmatrix/engine/sim"
)

// TestSimNumericsFlags: `speedmatrix sim` takes vLLM's words for what the
// model computes and the logprobs cap, refuses what vLLM would not accept
// in one line naming the flag, and says in its banner that output drifts.
func TestSimNumericsFlags(t *testing.T) {
	t.Parallel()
	f, err := parseSimFlags([]string{"--kv-cache-dtype", "fp8", "--quantization", "awq", "--dtype", "float32", "--max-logprobs", "5", "--batch-jitter", "off"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Numerics{DType: "float32", KVCacheDType: "fp8", Quantization: "awq", BatchInvariant: true}
	if f.numerics != want || f.maxLogprobs != 5 {
		t.Errorf("numerics %+v, max logprobs %d; want %+v, 5", f.numerics, f.maxLogprobs, want)
	}
	if note := numericsNote(f.numerics); !strings.HasPrefix(note, "dtype float32, kv-cache-dtype fp8, quantization awq (its logprobs and text drift") {
		t.Errorf("banner note %q", note)
	}
	if d, err := parseSimFlags(nil, io.Discard); err != nil || d.maxLogprobs != sim.DefaultMaxLogprobs || d.numerics != (sim.Numerics{}) || numericsNote(d.numerics) != "" {
		t.Errorf("defaults: %+v, max logprobs %d, note %q (%v)", d.numerics, d.maxLogprobs, numericsNote(d.numerics), err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kv-cache-dtype", "int4"}, `sim: --kv-cache-dtype "int4" is not one vLLM accepts: use one of auto, bfloat16,`},
		{[]string{"--quantization", "q4_k_m"}, `sim: --quantization "q4_k_m" is not one vLLM accepts: use one of auto_awq,`},
		{[]string{"--dtype", "fp64"}, `sim: --dtype "fp64" is not one vLLM accepts`},
		{[]string{"--max-logprobs", "33"}, "sim: --max-logprobs 33: the simulator serves 1 to 32 logprobs a token (vLLM's default is 20)"},
		{[]string{"--max-logprobs", "0"}, "sim: --max-logprobs 0: the simulator serves 1 to 32"},
		{[]string{"--batch-jitter", "maybe"}, `sim: --batch-jitter "maybe": use on, or off`},
	} {
		err := cliFor(t).sim(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line starting %q", tc.args, err, tc.want)
		}
	}
}

// TestStandInNumerics: the stand-in passes vLLM's --dtype,
// --kv-cache-dtype, --quantization and --max-logprobs to the simulator,
// logs the drift they cause, and refuses what vLLM's argparse refuses.
func TestStandInNumerics(t *testing.T) {
	t.Parallel()
	a, err := parseServeArgs([]string{"m", "--kv-cache-dtype", "int4_per_token_head", "--quantization", "awq", "--max-logprobs", "8"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := standInFor(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := (sim.Numerics{KVCacheDType: "int4_per_token_head", Quantization: "awq"}); s.numerics != want || s.maxLogprobs != 8 {
		t.Errorf("numerics %+v, max logprobs %d; want %+v, 8", s.numerics, s.maxLogprobs, want)
	}
	var out bytes.Buffer
	logStartup(vllmLog{w: &out, pid: 7}, a, s, 1)
	if !strings.Contains(out.String(), "stand-in numerics: kv-cache-dtype int4_per_token_head, quantization awq (its logprobs and text drift") {
		t.Errorf("log lacks the numerics line:\n%s", out.String())
	}
	if d, err := standInFor(serveArgs{model: "m"}); err != nil || d.maxLogprobs != sim.DefaultMaxLogprobs {
		t.Errorf("defaults: max logprobs %d (%v)", d.maxLogprobs, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"m", "--kv-cache-dtype", "int4"}, "error: argument --kv-cache-dtype: invalid choice: 'int4' (choose from 'auto', 'bfloat16',"},
		{[]string{"m", "--quantization", "q4"}, "error: argument --quantization: invalid choice: 'q4' (choose from 'auto_awq',"},
		{[]string{"m", "--max-logprobs", "64"}, "error: argument --max-logprobs: 64: the simulator serves 1 to 32 logprobs a token"},
		{[]string{"m", "--max-logprobs", "-1"}, "error: argument --max-logprobs: -1 is not a positive number"},
	} {
		var out bytes.Buffer
		err := cliFor(t).simServe(t.Context(), tc.args, func(string) string { return "" }, &out, io.Discard)
		if ExitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) || out.Len() > 0 {
			t.Errorf("%v: exit %d, %v; want exit 2 with %q and no log", tc.args, ExitCode(err), err, tc.want)
		}
	}
}
