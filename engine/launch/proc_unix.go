//go:build unix && !linux

package launch

import "syscall"

// sysProcAttr puts the server in its own process group, so Stop can signal
// every process vLLM spawns. (Pdeathsig exists only on Linux.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func checkPlatform() error { return nil }

func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return nil
	}
	return syscall.Kill(-pgid, sig)
}

// groupAlive reports whether a process of group pgid still exists.
func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) != syscall.ESRCH
}
