package capture

import (
	"context"
	"time"
)

// host is what Read looks at on this machine; tests give a fake.
type host interface {
	// listeners lists the TCP sockets listening on this machine.
	listeners() ([]listener, error)
	// owners lists the processes that hold the socket inode open. A
	// process whose file descriptors may not be read is left out.
	owners(inode string) ([]int, error)
	// process reads what Read records of a process.
	process(pid int) (proc, error)
	// docker runs the docker CLI with args and returns what it printed.
	docker(ctx context.Context, args ...string) ([]byte, error)
	// uid is the user id speedmatrix runs as.
	uid() int
}

// proc is what a process tells of itself. ArgvErr and EnvErr say why
// Argv or Environ could not be read.
type proc struct {
	PID, PPID, UID int
	User           string // UID's login name, when known
	Name           string // the command name ("vllm", "docker-proxy")
	Argv           []string
	ArgvErr        error
	Environ        []string
	EnvErr         error
	Dir            string // its working directory; "" when unreadable
	StartedAt      time.Time
	Cgroup         string // the text of /proc/PID/cgroup
}
