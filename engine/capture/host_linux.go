package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// dockerTimeout bounds each docker command: a daemon that hangs must not
// hold up the run.
const dockerTimeout = 5 * time.Second

// procHost reads this machine's /proc.
type procHost struct{}

func (procHost) uid() int { return os.Getuid() }

func (procHost) listeners() ([]listener, error) {
	var out []listener
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(name)
		if errors.Is(err, os.ErrNotExist) && strings.HasSuffix(name, "6") {
			continue // no IPv6
		}
		if err != nil {
			return nil, err
		}
		out = append(out, parseProcNetTCP(string(b))...)
	}
	return out, nil
}

func (procHost) owners(inode string) ([]int, error) {
	fds, err := filepath.Glob("/proc/[0-9]*/fd/[0-9]*")
	if err != nil {
		return nil, err
	}
	want := "socket:[" + inode + "]"
	var pids []int
	for _, fd := range fds {
		// Another user's descriptors can't be read: they are skipped.
		if target, err := os.Readlink(fd); err == nil && target == want {
			pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func (procHost) process(pid int) (proc, error) {
	ctx := context.Background()
	p, err := process.NewProcessWithContext(ctx, int32(pid))
	if err != nil {
		return proc{}, fmt.Errorf("process %d: %w", pid, err)
	}
	pr := proc{PID: pid}
	if uids, err := p.UidsWithContext(ctx); err == nil && len(uids) > 0 {
		pr.UID = int(uids[0])
		if u, err := user.LookupId(strconv.Itoa(pr.UID)); err == nil {
			pr.User = u.Username
		}
	}
	if ppid, err := p.PpidWithContext(ctx); err == nil {
		pr.PPID = int(ppid)
	}
	pr.Name, _ = p.NameWithContext(ctx)
	pr.Argv, pr.ArgvErr = p.CmdlineSliceWithContext(ctx)
	if pr.ArgvErr == nil && len(pr.Argv) == 0 {
		pr.ArgvErr = errors.New("its command line is empty (a kernel thread or a zombie)")
	}
	pr.Environ, pr.EnvErr = p.EnvironWithContext(ctx)
	pr.Dir, _ = p.CwdWithContext(ctx)
	if ms, err := p.CreateTimeWithContext(ctx); err == nil {
		pr.StartedAt = time.UnixMilli(ms)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid)); err == nil {
		pr.Cgroup = string(b)
	}
	return pr, nil
}

func (procHost) docker(ctx context.Context, args ...string) ([]byte, error) {
	if _, err := exec.LookPath("docker"); err != nil {
		return nil, errNoDocker
	}
	ctx, cancel := context.WithTimeout(ctx, dockerTimeout)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); msg != "" {
			return nil, fmt.Errorf("docker %s: %s", args[0], msg)
		}
		return nil, fmt.Errorf("docker %s: %w", args[0], err)
	}
	return out, nil
}
