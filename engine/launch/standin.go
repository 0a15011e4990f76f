package launch

import (
	"bytes"
	"cmp"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// standInFlag is the flag only Speed Matrix's stand-in for vllm serve reads
// (the simulator profile it serves); vLLM refuses it as unrecognized.
const standInFlag = "--sim-profile"

// StandInStartup is how long the stand-in takes to start with CUDA graphs
// (its model time; without them, half): what a sweep's estimate assumes
// of it until one start is measured.
const StandInStartup = 2 * time.Second

// standInScriptBytes bounds how much of an executable StandIn reads: a
// wrapper script is a few lines; a program is not a script.
const standInScriptBytes = 4096

// standInExec is the line of a wrapper script that runs the stand-in:
// `exec "$exe" sim "$@"` (examples/sweep/vllm), `exec speedmatrix sim "$@"`.
var standInExec = regexp.MustCompile(`(?m)^\s*exec\s+\S+\s+sim(\s|$)`)

// StandIn reports whether cfg launches Speed Matrix's stand-in for vllm
// serve (`speedmatrix sim serve`, as examples/sweep/vllm runs it) instead of
// vLLM: its extra_args give --sim-profile, which only the stand-in reads,
// or its executable is a script that runs speedmatrix's sim. The simulator
// then serves, on no GPU or CPU of this machine: ResolveDevice gives it no
// device of its own, and the launched server's report is labelled
// simulated from its start. It reads at most the script's first 4 KiB.
func StandIn(cfg ServerConfig) bool {
	if cfg.flavor() != &vllmFlavor || cfg.Runner == RunnerDocker {
		return false
	}
	for _, a := range cfg.ExtraArgs {
		if a == standInFlag || strings.HasPrefix(a, standInFlag+"=") {
			return true
		}
	}
	return standInScript(cmp.Or(cfg.Executable, DefaultExecutable))
}

// standInScript reports whether the program exe (a name on the PATH, or a
// path) is a #! script with a line that execs speedmatrix's sim.
func standInScript(exe string) bool {
	path, err := exec.LookPath(exe)
	if err != nil {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, standInScriptBytes)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return bytes.HasPrefix(head, []byte("#!")) && bytes.Contains(head, []byte("speedmatrix")) && standInExec.Match(head)
}
