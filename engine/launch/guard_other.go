//go:build !linux

package launch

import (
	"fmt"
	"os"
)

// guardsSupported: a guard needs Linux (a child subreaper, /proc).
const guardsSupported = false

func startGuarded(argv, env []string, out *os.File, _ string) (process, error) {
	return startDirect(argv, env, out)
}

func runGuard([]string) int {
	fmt.Fprintln(os.Stderr, "speedmatrix: a server guard needs Linux")
	return 2
}
