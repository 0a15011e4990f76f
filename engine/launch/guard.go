package launch

import (
	"os"
	"sync/atomic"
)

// A server's guard is a copy of this program that Launch starts in its
// place, and that starts the server. It exists for the day our process
// dies without a Stop (SIGKILL, a crash): only a direct child gets the
// kernel's parent-death signal, while vLLM's engine core, its workers and a
// Docker container are further down. The guard notices our death, ends the
// whole server tree and removes the container, then exits.
const (
	guardEnv          = "SPEEDMATRIX_GUARD"           // "1" in a guard's environment
	guardContainerEnv = "SPEEDMATRIX_GUARD_CONTAINER" // the container a guard removes
	guardName         = "speedmatrix-guard"           // a guard's argv[0], as ps shows it
)

// guards is set once RunGuardIfAsked has run in this program without
// becoming a guard: only then can Launch start a copy of it as one.
var guards atomic.Bool

// RunGuardIfAsked makes this process the guard of a server when Launch
// started it as one; it then never returns. Otherwise it returns at once
// and lets Launch start its servers under a guard. Call it first in main,
// before anything else runs (and in TestMain where tests launch servers):
// a program that never calls it launches servers without a guard, so that
// only the server's main process dies with it.
func RunGuardIfAsked() {
	if os.Getenv(guardEnv) == "" {
		guards.Store(guardsSupported)
		return
	}
	os.Exit(runGuard(os.Args[1:]))
}

// withoutGuardVars is env less the variables that make a guard.
func withoutGuardVars(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !hasName(kv, guardEnv) && !hasName(kv, guardContainerEnv) {
			out = append(out, kv)
		}
	}
	return out
}

func hasName(kv, name string) bool {
	return len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name
}
