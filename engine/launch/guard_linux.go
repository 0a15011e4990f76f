package launch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// guardsSupported: Linux has what a guard needs (a child subreaper, /proc).
const guardsSupported = true

// A guard's inherited files: the lifeline (read end; EOF once every copy
// of the write end is closed, that is once our process is gone, however it
// died) and the status pipe (the guard writes "pid N" or "error ...").
const (
	lifelineFD = 3
	statusFD   = 4
)

// Graces before the guard escalates from SIGTERM to SIGKILL: after our
// death (then docker rm -f, all within 15 s; the tests' guards wait less,
// see guard_test.go), and for processes that outlived the server's own
// exit (a clean Stop has already waited).
var orphanGrace = 5 * time.Second

const leftoverGrace = 3 * time.Second

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER, linux/prctl.h

// startGuarded starts a guard of argv: this very program (/proc/self/exe,
// which works even when the file was replaced since) in guard mode.
func startGuarded(argv, env []string, out *os.File, container string) (process, error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return process{}, err
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		lifeR.Close()
		lifeW.Close()
		return process{}, err
	}
	cmd := exec.Command("/proc/self/exe", argv...)
	cmd.Args[0] = guardName
	cmd.Env = append(env[:len(env):len(env)], guardEnv+"=1", guardContainerEnv+"="+container)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{lifeR, statW} // lifelineFD, statusFD
	// Its own group: a Ctrl-C in the terminal is ours to handle, and Stop
	// signals the server's group, not the guard.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	lifeR.Close()
	statW.Close()
	if err != nil {
		lifeW.Close()
		statR.Close()
		return process{}, err
	}
	line, _ := bufio.NewReader(statR).ReadString('\n')
	statR.Close()
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid ")))
	if err != nil {
		_ = cmd.Wait()
		lifeW.Close()
		if msg, ok := strings.CutPrefix(strings.TrimSpace(line), "error "); ok {
			return process{}, errors.New(msg)
		}
		return process{}, fmt.Errorf("the server's guard did not start (%q)", strings.TrimSpace(line))
	}
	return process{cmd: cmd, pgid: pid, release: func() { lifeW.Close() }}, nil
}

// runGuard is the guard: it starts argv in its own process group, tells
// the launcher its pid, and waits. When the server exits, it ends what the
// server left running and exits as the server did. When the launcher dies
// (the lifeline reaches EOF) or the guard is told to stop (SIGTERM,
// SIGINT, SIGHUP), it ends the whole tree, removes the container and exits.
func runGuard(argv []string) int {
	// The server's parent-death signal fires when the thread that started
	// it ends: keep that thread for the guard's whole life.
	runtime.LockOSThread()
	syscall.CloseOnExec(lifelineFD)
	syscall.CloseOnExec(statusFD)
	lifeline, status := os.NewFile(lifelineFD, "lifeline"), os.NewFile(statusFD, "status")
	container := os.Getenv(guardContainerEnv)
	if len(argv) == 0 {
		fmt.Fprintln(status, "error the guard was given no command")
		return 2
	}
	// Processes that leave the server's tree (daemons) become our children.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		fmt.Fprintf(os.Stderr, "speedmatrix-guard: cannot become a subreaper: %v\n", e)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = withoutGuardVars(os.Environ()), os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(status, "error %v\n", err)
		return 127
	}
	server := cmd.Process.Pid
	fmt.Fprintf(status, "pid %d\n", server)
	status.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	lost := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, lifeline); close(lost) }()
	for {
		select {
		case <-exited:
			endTree(server, leftoverGrace)
			return exitLike(cmd.ProcessState)
		case <-lost:
		case <-stop:
		case <-children:
			reapOrphans(server)
			continue
		}
		endTree(server, orphanGrace)
		if container != "" {
			removeContainer(container)
		}
		return 1
	}
}

// endTree ends the server's process group and every process below the
// guard: SIGTERM, then SIGKILL for what is left after grace.
func endTree(pgid int, grace time.Duration) {
	self := os.Getpid()
	signalAll := func(sig syscall.Signal) (alive bool) {
		if groupAlive(pgid) {
			_ = syscall.Kill(-pgid, sig)
			alive = true
		}
		for _, p := range descendants(self) {
			if p.running() {
				_ = syscall.Kill(p.pid, sig)
				alive = true
			}
		}
		return alive
	}
	if !signalAll(syscall.SIGTERM) {
		reapOrphans(pgid)
		return
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		reapOrphans(pgid)
		if !treeAlive(self, pgid) {
			return
		}
	}
	for range 100 {
		if !signalAll(syscall.SIGKILL) {
			break
		}
		time.Sleep(50 * time.Millisecond)
		reapOrphans(pgid)
	}
}

func treeAlive(self, pgid int) bool {
	for _, p := range descendants(self) {
		if p.running() {
			return true
		}
	}
	return groupAlive(pgid)
}

// reapOrphans waits for the guard's children that have exited, except the
// server (its exec.Cmd waits for it): orphans that came to us as subreaper.
func reapOrphans(server int) {
	self := os.Getpid()
	for _, p := range procs() {
		if p.ppid == self && p.pid != server && !p.running() {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// exitLike ends the guard as the server ended: with its exit code, or
// killed by the same signal (so that the launcher's error says "killed").
func exitLike(st *os.ProcessState) int {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return st.ExitCode()
	}
	switch sig := ws.Signal(); sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second)
		return 128 + int(sig)
	default:
		return 128 + int(sig)
	}
}
