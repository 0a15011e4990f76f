package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"speedmatrix/engine/measure"
	"speedmatrix/engine/openai"
	"speedmatrix/engine/roofline"
	"speedmatrix/engine/servers"
	"speedmatrix/engine/sim"
)

// targetFlags are the options that say which server to measure and how to
// talk to it: one home for the flags `run` and `load` share.
type targetFlags struct {
	endpoint, simProfile, launch string
	simMode                      string // the engine the simulator speaks as
	model, apiKeyEnv             string
	passwordEnv                  string // the variable that holds --endpoint's password
	firstToken, stall, request   time.Duration
	idleTimeout                  time.Duration // deprecated: sets first-token and stall
	allowBusy                    bool
	gpuMetrics                   string // DCGM exporter URLs, comma-separated
	modelConfig                  string // the model's folder (config.json), for the roofline
}

// add defines the target flags on fs.
func (f *targetFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.endpoint, "endpoint", "", "base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
	fs.StringVar(&f.simProfile, "sim", "", "measure the built-in simulator with this profile (results are labelled simulated)")
	fs.StringVar(&f.simMode, "sim-engine", sim.ModeVLLM, "with --sim: the engine the simulator speaks as, "+strings.Join(servers.SimModes(), " or "))
	fs.StringVar(&f.launch, "launch", "", "start vllm from this server.toml, measure it, stop it")
	fs.StringVar(&f.gpuMetrics, "gpu-metrics", "", "with --endpoint: DCGM exporter URLs to read the GPUs and their telemetry from, comma-separated, e.g. http://node1:9400/metrics,http://node2:9400/metrics")
	fs.StringVar(&f.model, "model", "", "served model name (default: the first one /v1/models lists)")
	fs.StringVar(&f.modelConfig, "model-config", "", "folder holding the model's config.json, for the roofline (default: the model's in the Hugging Face cache)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "", "name of the environment variable that holds the API key")
	fs.StringVar(&f.passwordEnv, "password-env", "", "name of the environment variable that holds the password of --endpoint's user (http://user@host:8000), kept out of the process list")
	fs.DurationVar(&f.firstToken, "first-token-timeout", openai.DefaultFirstTokenTimeout, "a request with no first token this long after it was sent has stalled and fails")
	fs.DurationVar(&f.stall, "stall-timeout", openai.DefaultStallTimeout, "a request that receives no further token for this long after its first has stalled; inside a window it fails the cell")
	fs.DurationVar(&f.request, "request-timeout", openai.DefaultRequestTimeout, "timeout of every non-streaming request (models, tokenize, metrics, health, version)")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 0, "deprecated: sets both --first-token-timeout and --stall-timeout")
	fs.BoolVar(&f.allowBusy, "allow-busy", false, "measure a server that other clients use (the idle check and drain barrier are off; every result is flagged)")
}

// check applies --idle-timeout and says, for command cmd, what is wrong
// with the target flags (set: the flags given).
func (f *targetFlags) check(cmd string, set map[string]bool) error {
	if f.idleTimeout > 0 {
		f.firstToken, f.stall = f.idleTimeout, f.idleTimeout
	}
	if f.firstToken <= 0 || f.stall <= 0 || f.request <= 0 {
		return errors.New(cmd + ": --first-token-timeout, --stall-timeout and --request-timeout must be positive, e.g. 30s")
	}
	if _, err := servers.BySimMode(f.simMode); err != nil {
		return fmt.Errorf("%s: --sim-engine %w", cmd, err)
	}
	if set["sim-engine"] && f.simProfile == "" {
		return errors.New(cmd + ": --sim-engine goes with --sim PROFILE")
	}
	return nil
}

// settle gives the target the flags' timeouts, --allow-busy and the
// roofline of --model-config.
func (c *CLI) settle(t *measure.Subject, f targetFlags) {
	t.FirstTokenTimeout, t.StallTimeout, t.RequestTimeout = f.firstToken, f.stall, f.request
	t.AllowBusy, t.IdleWait = f.allowBusy, c.IdleWait
	if f.modelConfig != "" {
		t.Header.Roofline = roofline.ForServer(t.Header, f.modelConfig, roofline.ServerFacts{})
	}
}

// parseFlags parses a subcommand's args into fs, refuses arguments that
// are not flags, and returns the flags given on the command line.
func parseFlags(fs *flag.FlagSet, args []string) (map[string]bool, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: unexpected argument %q: every option is a flag, see speedmatrix %s -h", fs.Name(), fs.Arg(0), fs.Name())
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set, nil
}
