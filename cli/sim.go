package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/servers"
	"speedmatrix/engine/sim"
)

// simFlags are the options of `speedmatrix sim`.
type simFlags struct {
	profile, addr, apiKeyEnv string
	engine, noise            string
	list, noMetrics          bool
	oldReasoning             bool
	timeScale                float64
	seed                     int64
	loopAfter                int
	faults                   sim.Faults
	numerics                 sim.Numerics
	maxLogprobs              int
	batchJitter              string
}

func parseSimFlags(args []string, stderr io.Writer) (simFlags, error) {
	var f simFlags
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.profile, "profile", "tiny", "simulator profile (see --list)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8000", "address to serve on")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "", "name of the environment variable holding the API key clients must send")
	fs.BoolVar(&f.list, "list", false, "list the profiles and exit")
	fs.StringVar(&f.engine, "engine", sim.ModeVLLM, "the server to speak as: vllm, or sglang (SGLang's endpoints and sglang:* metrics, no /tokenize, generates on after a disconnect until POST /abort_request)")
	fs.BoolVar(&f.noMetrics, "no-metrics", false, "serve no /metrics, as SGLang without --enable-metrics")
	fs.BoolVar(&f.oldReasoning, "old-reasoning-field", false, "a reasoning profile streams its thought as delta.reasoning_content, as vLLM before 0.16 did (default: delta.reasoning)")
	fs.Float64Var(&f.timeScale, "time-scale", 1, "run the performance model this many times faster than real time")
	fs.Int64Var(&f.seed, "seed", 0, "seed of the profile's noise and of how long answers run (the greedy text is the same on every seed)")
	fs.StringVar(&f.noise, "noise", "on", "the profile's step-time noise (per-step jitter, clock drift, rare hiccups): on, or off for exact step times")
	fs.IntVar(&f.loopAfter, "loop-after", 0, "make every request repeat a phrase after this many tokens (0: the profile's behaviour)")
	fs.Float64Var(&f.faults.ErrorRate, "error-rate", 0, "fraction of generation requests answered with HTTP 500")
	fs.IntVar(&f.faults.DisconnectAfterTokens, "disconnect-after", 0, "drop each stream's connection after this many tokens (0: never)")
	fs.IntVar(&f.faults.StallAfterTokens, "stall-after", 0, "stop sending on each stream after this many tokens (0: never)")
	fs.DurationVar(&f.faults.StartupDelay, "startup-delay", 0, "answer 503 (and /health 503) for this long after start")
	fs.BoolVar(&f.faults.GenTokensAtFinish, "gen-counter-at-finish", false, "advance vllm:generation_tokens_total only when a request ends, by its whole output")
	fs.DurationVar(&f.faults.LingerAfterDisconnect, "linger", 0, "keep generating this long after a client disconnects (model time)")
	simNumericsFlags(fs, &f.numerics, &f.maxLogprobs, &f.batchJitter)
	fs.IntVar(&f.faults.OtherLoad, "other-load", 0, fmt.Sprintf("serve `N` requests of another client all the time (%d prompt tokens, %d output tokens each)", sim.OtherPromptTokens, sim.OtherMaxTokens))
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: speedmatrix sim [--profile NAME] [--engine vllm|sglang] [--addr 127.0.0.1:8000] [--api-key-env VAR] [--list] [fault options]")
		fmt.Fprintln(fs.Output(), "       speedmatrix sim serve MODEL [vllm serve flags]   a stand-in for vllm serve (-h for its speed model)")
		fmt.Fprintln(fs.Output(), "Serve a simulated vLLM or SGLang server (OpenAI-compatible API, simulated timings) for demos and tests.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("sim: unexpected argument %q: every option is a flag, see speedmatrix sim -h", fs.Arg(0))
	}
	if f.timeScale <= 0 {
		return f, fmt.Errorf("sim: --time-scale %g must be positive: use 1 for real time", f.timeScale)
	}
	if f.noise != "on" && f.noise != "off" {
		return f, fmt.Errorf("sim: --noise %q: use on, or off for exact step times", f.noise)
	}
	if _, err := servers.BySimMode(f.engine); err != nil {
		return f, fmt.Errorf("sim: --engine %w", err)
	}
	if f.batchJitter != "on" && f.batchJitter != "off" {
		return f, fmt.Errorf("sim: --batch-jitter %q: use on, or off for logprobs that do not depend on the batch", f.batchJitter)
	}
	f.numerics.BatchInvariant = f.batchJitter == "off"
	if err := checkNumerics(f.numerics, false); err != nil {
		return f, fmt.Errorf("sim: %w", err)
	}
	if !maxLogprobsOK(f.maxLogprobs) {
		return f, fmt.Errorf("sim: --max-logprobs %d: %s", f.maxLogprobs, maxLogprobsRange)
	}
	return f, checkFaultFlags(f.faults)
}

// faultFlags names the flag of each sim.Faults field.
var faultFlags = map[string]string{
	"ErrorRate": "--error-rate", "DisconnectAfterTokens": "--disconnect-after", "StallAfterTokens": "--stall-after",
	"StartupDelay": "--startup-delay", "LingerAfterDisconnect": "--linger", "OtherLoad": "--other-load",
}

// checkFaultFlags names the first fault flag with a value that makes no sense.
func checkFaultFlags(ft sim.Faults) error {
	var fe *sim.FaultError
	if err := ft.Validate(); errors.As(err, &fe) {
		return fmt.Errorf("sim: %s %s makes no sense: use %s", faultFlags[fe.Field], fe.Value, fe.Want)
	} else if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	return nil
}

// sim implements `speedmatrix sim`: it serves the simulator until ctx is
// cancelled, or lists the profiles with --list; `sim serve` is a stand-in
// for `vllm serve` (simserve.go).
func (c *CLI) sim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "serve" {
		return c.simServe(ctx, args[1:], os.Getenv, stdout, stderr)
	}
	f, err := parseSimFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.list {
		listProfiles(stdout)
		return nil
	}
	p, err := sim.LookupProfile(f.profile)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if f.loopAfter > 0 {
		p.Loop = sim.Loop{AfterTokens: f.loopAfter}
	}
	if f.noise == "off" {
		p.Noise = sim.Noise{}
	}
	opts := sim.Options{Profile: p, TimeScale: f.timeScale, Faults: f.faults, Seed: f.seed, Mode: f.engine, NoMetrics: f.noMetrics,
		Numerics: f.numerics, MaxLogprobs: f.maxLogprobs, OldReasoningField: f.oldReasoning}
	if f.apiKeyEnv != "" {
		key, ok := os.LookupEnv(f.apiKeyEnv)
		if !ok || key == "" {
			return fmt.Errorf("sim: environment variable %s is not set or empty: export it or drop --api-key-env", f.apiKeyEnv)
		}
		opts.APIKey = key
	}
	s, err := sim.New(opts)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("sim: listen on %s: %w (pick another --addr)", f.addr, err)
	}
	fmt.Fprintf(stdout, "Simulated %s server (not a real GPU: timings come from the %s profile's performance model)\n", modeLabel(f.engine), p.Name)
	fmt.Fprintf(stdout, "  URL:          http://%s\n  served model: %s (max_model_len %d, KV cache %d tokens)\n",
		ln.Addr(), p.ServedModel, p.MaxModelLen, p.KVCacheTokens)
	if opts.APIKey != "" {
		fmt.Fprintf(stdout, "  API key:      from $%s (<redacted>)\n", f.apiKeyEnv)
	}
	if f.timeScale != 1 {
		fmt.Fprintf(stdout, "  time scale:   %g× real time\n", f.timeScale)
	}
	fmt.Fprintf(stdout, "  noise:        %s\n", noiseNote(p.Noise, f.seed))
	if note := numericsNote(f.numerics); note != "" {
		fmt.Fprintf(stdout, "  numerics:     %s\n", note)
	}
	if notes := faultNotes(f.faults); len(notes) > 0 {
		fmt.Fprintf(stdout, "  faults:       %s\n", strings.Join(notes, "; "))
	}
	return serveUntilDone(ctx, ln, s, s.Close)
}

// modeLabel names the engine the simulator speaks as in its banner.
func modeLabel(eng string) string {
	if eng == sim.ModeSGLang {
		return "SGLang " + sim.SGLangVersion
	}
	return "vLLM"
}

// serveUntilDone serves h on ln until ctx ends, then ends h's open streams
// with closeStreams and shuts down.
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler, closeStreams func()) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("sim: serve: %w", err)
	case <-ctx.Done():
	}
	closeStreams()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("sim: shut down: %w", err)
	}
	_ = srv.Close()
	return nil
}

// faultNotes describes the faults that are switched on, for the banner.
func faultNotes(ft sim.Faults) []string {
	var notes []string
	add := func(on bool, format string, v any) {
		if on {
			notes = append(notes, fmt.Sprintf(format, v))
		}
	}
	add(ft.ErrorRate > 0, "%g of requests fail", ft.ErrorRate)
	add(ft.DisconnectAfterTokens > 0, "streams dropped after %d tokens", ft.DisconnectAfterTokens)
	add(ft.StallAfterTokens > 0, "streams stall after %d tokens", ft.StallAfterTokens)
	add(ft.StartupDelay > 0, "503 for %s after start", ft.StartupDelay)
	add(ft.GenTokensAtFinish, "generation_tokens_total moves only when a request ends%s", "")
	add(ft.LingerAfterDisconnect > 0, "generates %s on after a client disconnects", ft.LingerAfterDisconnect)
	add(ft.OtherLoad > 0, "%s of another client always in flight", engine.Count(ft.OtherLoad, "request", "requests"))
	return notes
}

// noiseNote describes the profile's noise for the banner.
func noiseNote(n sim.Noise, seed int64) string {
	if !n.On() {
		return "off (every step takes its modelled time)"
	}
	return fmt.Sprintf("step jitter %.3g %%, clock drift %.3g %% over %gs, %g hiccups/s of %gms (seed %d)",
		100*n.StepJitter, 100*n.Drift, n.DriftTimeS, n.HiccupsPerS, 1000*n.HiccupS, seed)
}

func listProfiles(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROFILE\tSERVED MODEL\tMAX MODEL LEN\tKV CACHE TOKENS\tMAX NUM SEQS\tDESCRIPTION")
	for _, p := range sim.Profiles() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", p.Name, p.ServedModel, p.MaxModelLen, p.KVCacheTokens, p.MaxNumSeqs, p.Description)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "All figures served by these profiles are simulated.")
}
