package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/sim"
)

// timeScaleEnv runs a stand-in's performance model and start-up faster
// than real time, for tests (the launcher passes it on: it is not a flag
// that a server.toml would have to carry).
const timeScaleEnv = "SPEEDMATRIX_SIM_TIME_SCALE"

// simServeUsage is `speedmatrix sim serve -h`, with the speed model.
const simServeUsage = `usage: speedmatrix sim serve MODEL [vllm serve flags]
A stand-in for "vllm serve" (no GPU needed): it logs as vLLM does and serves the
simulator, whose speed depends on the flags it gets, so that a launch or a sweep
of server settings has an answer known in advance. Every figure it serves is
simulated; a run against it is labelled so. Point a server.toml's executable at a
script that runs "speedmatrix sim \"$@\"" (examples/sweep/vllm).

Flags read as vLLM does (--flag value or --flag=value):
  --host (default 127.0.0.1, unlike vLLM) --port (8000) --served-model-name
  --api-key (or VLLM_API_KEY) --max-model-len --seed
  --sim-profile NAME   the simulator profile (default tiny; see speedmatrix sim --list)
Speed model, applied to the profile:
  --max-num-seqs N            at most N sequences run at once; more requests wait,
                              so total tok/s stops growing at N
  --max-num-batched-tokens N  a step's token budget
  --enforce-eager             no CUDA graphs: every decode step 25 % slower; starts
                              in 1 s instead of 2 s
  --kv-cache-dtype fp8*       half the bytes a token: twice the KV cache tokens,
                              decode steps 5 % faster
  --gpu-memory-utilization U  KV cache memory = U × GPU memory − (weights and
                              activations), the latter being what the profile's KV
                              cache leaves at the profile's own U (tiny: 8 GiB,
                              3 GiB of KV cache at 0.9, so 0.01 is 82 MiB,
                              2,621 tokens); U ≥ 0.99 fails start-up out of
                              memory, and a cache too small for one
                              --max-model-len request fails as vLLM does
  --kv-cache-memory-bytes B   the KV cache's memory per GPU, in place of U's rule
  --no-enable-prefix-caching  no prefix cache: every prompt is computed in full
What the model computes (its logprobs and greedy text, against the reference's):
  --dtype float32|float16     drifts a little from bfloat16's (the reference)
  --kv-cache-dtype fp8*       drifts, more the longer the context; a 4-bit cache
                              (int4_per_token_head, nvfp4, …) more; a needle's
                              answer then errs more often at long contexts
  --quantization METHOD       fp8 drifts a little, awq, gptq, modelopt_fp4 … more,
                              at every context
  --max-logprobs N            the most logprobs a request may ask for (default 20,
                              at most 32); more is vLLM's 400
Other flags (--tensor-parallel-size, --async-scheduling, any other), and --dtype,
--quantization and a KV cache dtype other than FP8 for the speed model, are
accepted and named once in a "stand-in ignores" line.
Environment: SPEEDMATRIX_SIM_TIME_SCALE runs time this many times faster (tests).
Exit status: 2 for a malformed flag (as vLLM's argparse), 1 for a failed start.`

// simServe implements `speedmatrix sim serve MODEL [vllm serve flags]`: it
// behaves as `vllm serve` does for the launcher (its log, /health 503 while
// it starts, its failures and exit statuses) and serves the simulator with
// the profile its flags make, until ctx ends. getenv reads the environment.
func (c *CLI) simServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	a, err := parseServeArgs(args)
	if a.help {
		fmt.Fprintln(stderr, simServeUsage)
		return flag.ErrHelp
	}
	if err != nil {
		fmt.Fprintln(stderr, "usage: speedmatrix sim serve MODEL [vllm serve flags] (a stand-in for vllm serve; -h for its flags)")
		return exitWith(2, fmt.Errorf("sim serve: %w", err))
	}
	scale := 1.0
	if v := getenv(timeScaleEnv); v != "" {
		if scale, err = strconv.ParseFloat(v, 64); err != nil || scale <= 0 {
			return exitWith(2, fmt.Errorf("sim serve: %s=%q is not a positive number: unset it for real time", timeScaleEnv, v))
		}
	}
	s, err := standInFor(a)
	if err != nil {
		return exitWith(2, fmt.Errorf("sim serve: %w", err))
	}
	log := vllmLog{w: stdout, pid: os.Getpid()}
	logStartup(log, a, s, scale)
	if s.failure == startsFine || s.failure == failOutOfMemory {
		// vLLM sizes the KV cache before it runs out warming up.
		logKVCache(log, profileSize{kvTokens: s.profile.KVCacheTokens, maxModelLen: s.profile.MaxModelLen})
	}
	if s.failure != startsFine {
		logFailure(log, s)
		return fmt.Errorf("sim serve: start-up failed as vLLM's would: %s", s.failureReason())
	}
	delay := engine.DurationOf(s.startup.Seconds() / scale)
	srv, err := sim.New(sim.Options{Profile: s.profile, APIKey: cmp.Or(a.apiKey, getenv("VLLM_API_KEY")),
		TimeScale: scale, Seed: a.seed, Faults: sim.Faults{StartupDelay: delay}, Numerics: s.numerics, MaxLogprobs: s.maxLogprobs})
	if err != nil {
		return fmt.Errorf("sim serve: %w", err)
	}
	defer srv.Close()
	host := cmp.Or(a.host, "127.0.0.1")
	port := cmp.Or(a.port, 8000)
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		log.printf("APIServer", "ERROR", "api_server.py:1", "OSError: [Errno 98] error while attempting to bind on address ('%s', %d): address already in use", host, port)
		return fmt.Errorf("sim serve: listen on %s port %d: %w (pick another --port)", host, port, err)
	}
	log.printf("APIServer", "INFO", "entry.py:140", "Starting vLLM server on http://%s", ln.Addr())
	stop := announceReady(ctx, log, delay)
	defer stop()
	if err := serveUntilDone(ctx, ln, srv, srv.Close); err != nil {
		return err
	}
	log.printf("APIServer", "INFO", "launcher.py:110", "Shutting down FastAPI HTTP server.")
	return nil
}

// announceReady logs uvicorn's start-up lines once the start-up delay is
// over (the simulator answers 503 until then), unless ctx ends first. The
// returned func waits until it has written or given up.
func announceReady(ctx context.Context, log vllmLog, delay time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			log.raw(fmt.Sprintf("INFO:     Started server process [%d]", log.pid))
			log.raw("INFO:     Waiting for application startup.")
			log.raw("INFO:     Application startup complete.")
		case <-ctx.Done():
		case <-done:
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
