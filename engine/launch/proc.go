package launch

import (
	"os"
	"os/exec"
)

// process is a started server: the command to wait for (the server itself,
// or its guard) and the server's process group, which Stop signals.
type process struct {
	cmd     *exec.Cmd
	pgid    int
	release func() // called once cmd has been waited for
}

// startProcess starts argv (argv[0] a path) with env and its output on out:
// under a guard where this program can be one (see RunGuardIfAsked), else
// directly. container is the Docker container to remove should we die.
func startProcess(argv, env []string, out *os.File, container string) (process, error) {
	if guards.Load() {
		return startGuarded(argv, env, out, container)
	}
	return startDirect(argv, env, out)
}

// startDirect starts argv itself, in its own process group.
func startDirect(argv, env []string, out *os.File) (process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return process{}, err
	}
	return process{cmd: cmd, pgid: cmd.Process.Pid, release: func() {}}, nil
}
