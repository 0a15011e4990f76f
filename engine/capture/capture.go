// Package capture reads how a server already running on this machine was
// started: it finds the process listening on the endpoint's port (through
// /proc/net/tcp and the processes' file descriptors), then records its
// command line, its environment, when it started and, for a server in a
// Docker container, the container and its image. Every secret is hidden
// with engine/secret before it leaves the package. What can't be read (a
// server of another user, on another machine) is recorded with the reason.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/launch"
	"speedmatrix/engine/secret"
	"speedmatrix/engine/servers"
)

// Read finds the process serving baseURL on this machine and reads how it
// was started. It never fails: what it could not read, and why, is in the
// result's NotCaptured and Notes.
func Read(ctx context.Context, baseURL string) engine.ServerProcess {
	p := read(ctx, procHost{}, baseURL)
	engine.BoundStrings(&p) // what a process (or docker) says of itself is shown and saved
	return p
}

func read(ctx context.Context, h host, baseURL string) engine.ServerProcess {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return notCaptured("the endpoint %q is not a URL", baseURL)
	}
	port, err := urlPort(u)
	if err != nil {
		return notCaptured("the endpoint's port %q is not a number", u.Port())
	}
	ips := localIPs(ctx, u.Hostname())
	if len(ips) == 0 {
		return notCaptured("the server is not on this machine (%s)", u.Host)
	}
	ls, err := h.listeners()
	if err != nil {
		return notCaptured("this machine's listening sockets could not be read: %v", err)
	}
	l, ok := pickListener(ls, ips, port)
	if !ok {
		// A container's port forwarded without docker-proxy has no listener here.
		p := notCaptured("nothing on this machine listens on port %d", port)
		byPort(ctx, h, &p, port)
		return p
	}
	pids, err := h.owners(l.Inode)
	if err != nil || len(pids) == 0 {
		p := unreadable(h, l, err)
		byPort(ctx, h, &p, port)
		return p
	}
	pr, err := h.process(topProcess(h, pids))
	if err != nil {
		return notCaptured("its process could not be read: %v", err)
	}
	p := fromProcess(pr)
	if pr.Name == "docker-proxy" {
		p = engine.ServerProcess{UID: pr.UID, User: pr.User}
		byPort(ctx, h, &p, port)
		if p.Container == nil && p.NotCaptured == "" {
			p.NotCaptured = "docker-proxy forwards the port, but no running container publishes it"
		}
	} else if id := containerID(pr.Cgroup); id != "" {
		byID(ctx, h, &p, id)
	}
	return p
}

// notCaptured is a ServerProcess that says why nothing was read.
func notCaptured(format string, v ...any) engine.ServerProcess {
	return engine.ServerProcess{NotCaptured: fmt.Sprintf(format, v...)}
}

// unreadable says why no process was found holding l open.
func unreadable(h host, l listener, err error) engine.ServerProcess {
	p := engine.ServerProcess{UID: l.UID}
	switch {
	case err != nil:
		p.NotCaptured = fmt.Sprintf("the processes' open files could not be read: %v", err)
	case l.UID != h.uid():
		p.NotCaptured = fmt.Sprintf("the server runs as another user (uid %d)", l.UID)
	default:
		p.NotCaptured = "no process holding its socket could be read (no permission to read /proc/*/fd)"
	}
	return p
}

// topProcess is the process that opened the socket: of those that hold it
// (vLLM's API server processes share one), the one whose parent does not.
func topProcess(h host, pids []int) int {
	slices.Sort(pids)
	for _, pid := range pids {
		pr, err := h.process(pid)
		if err == nil && !slices.Contains(pids, pr.PPID) {
			return pid
		}
	}
	return pids[0]
}

// fromProcess records pr's command line, environment and start time.
func fromProcess(pr proc) engine.ServerProcess {
	p := engine.ServerProcess{PID: pr.PID, UID: pr.UID, User: pr.User, StartedAt: pr.StartedAt}
	if pr.ArgvErr != nil {
		p.NotCaptured = why(pr.PID, "cmdline", pr.UID, pr.ArgvErr)
		return p
	}
	p.Command, p.From, p.Dir = redactArgv(pr.Argv), fmt.Sprintf("/proc/%d", pr.PID), pr.Dir
	argv := absArgv(pr.Argv, pr.Dir)
	p.ServerVersion = venvVersion(argv)
	if b, ok := launch.FindCPUBuild(program(argv)); ok {
		p.CPUBuild = b.String()
	}
	if pr.EnvErr != nil {
		p.Notes = append(p.Notes, "environment: not captured: "+why(pr.PID, "environ", pr.UID, pr.EnvErr))
	} else {
		p.Env = secret.Env(pr.Environ, servers.IsRelevantEnv)
	}
	return p
}

// why words a failed read of /proc/PID/file.
func why(pid int, file string, uid int, err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Sprintf("no permission to read /proc/%d/%s (the server runs as uid %d)", pid, file, uid)
	}
	return err.Error()
}

// byID adds the container id's name and image (and, when the process could
// not be read, its command) from docker.
func byID(ctx context.Context, h host, p *engine.ServerProcess, id string) {
	c, err := inspect(ctx, h, id)
	if err != nil {
		p.Container = &engine.Container{ID: id[:12]}
		p.Notes = append(p.Notes, "container: "+err.Error())
		return
	}
	fromContainer(p, c)
}

// byPort looks for a running container that publishes port, for a port
// that a process of this machine's user doesn't hold.
func byPort(ctx context.Context, h host, p *engine.ServerProcess, port int) {
	c, ok, err := publishing(ctx, h, port)
	switch {
	case errors.Is(err, errNoDocker):
	case err != nil:
		p.Notes = append(p.Notes, "Docker containers not checked: "+err.Error())
	case ok:
		fromContainer(p, c)
	}
}

// redactArgv is argv with secret flag values and URL passwords hidden.
func redactArgv(argv []string) []string {
	out := secret.Args(argv)
	for i, w := range out {
		out[i] = secret.Text(w)
	}
	return out
}

// urlPort is u's port, or the scheme's default.
func urlPort(u *url.URL) (int, error) {
	if p := u.Port(); p != "" {
		return strconv.Atoi(p)
	}
	if u.Scheme == "https" {
		return 443, nil
	}
	return 80, nil
}

// program is the vllm program argv runs: argv[0], or the script of
// `python …/bin/vllm`.
func program(argv []string) string {
	if len(argv) > 1 && strings.HasPrefix(filepath.Base(argv[0]), "python") {
		return argv[1]
	}
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}

// absArgv is argv with its program (and a python's script) made absolute
// against dir, the process's working directory: a server started as
// `venv/bin/vllm serve …` from its folder names its venv only that way.
func absArgv(argv []string, dir string) []string {
	if dir == "" || len(argv) == 0 {
		return argv
	}
	out := slices.Clone(argv)
	for i := range min(2, len(out)) {
		if relativePath(out[i]) {
			out[i] = filepath.Join(dir, out[i])
		}
	}
	return out
}

// relativePath reports whether a names a file by a path relative to the
// working directory ("venv/bin/vllm"), not a bare name looked up on PATH.
func relativePath(a string) bool { return strings.Contains(a, "/") && !filepath.IsAbs(a) }
