package launch

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// sysProcAttr puts a server started without a guard in its own process
// group, so Stop can signal every process vLLM spawns, and has the kernel
// SIGKILL it if our process dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func checkPlatform() error { return nil }

func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return nil
	}
	return syscall.Kill(-pgid, sig)
}

// groupAlive reports whether a process of group pgid is still running.
// Zombies do not count: an orphan waits for init to reap it, and some
// container inits never do.
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	for _, p := range procs() {
		if p.pgrp == pgid && p.running() {
			return true
		}
	}
	return false
}

// procInfo is one process of /proc/PID/stat.
type procInfo struct {
	pid, ppid, pgrp int
	state           string
}

// running is false for a zombie (or a dead process) that waits to be reaped.
func (p procInfo) running() bool { return p.state != "Z" && p.state != "X" }

// procs lists every process of this machine (that /proc shows us).
func procs() []procInfo {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	out := make([]procInfo, 0, len(stats))
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 {
			continue
		}
		pid, err1 := strconv.Atoi(string(bytes.Fields(b[:i])[0]))
		ppid, err2 := strconv.Atoi(string(f[1]))
		pgrp, err3 := strconv.Atoi(string(f[2]))
		if err1 == nil && err2 == nil && err3 == nil {
			out = append(out, procInfo{pid: pid, ppid: ppid, pgrp: pgrp, state: string(f[0])})
		}
	}
	return out
}

// descendants are the processes below pid (children, theirs, and so on),
// zombies included.
func descendants(pid int) []procInfo {
	children := map[int][]procInfo{}
	for _, p := range procs() {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var out []procInfo
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}
