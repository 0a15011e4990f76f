package capture

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// fakeHost is a machine with canned sockets, processes and docker answers.
type fakeHost struct {
	ls     []listener
	holds  map[string][]int // socket inode → pids
	procs  map[int]proc
	dock   map[string]string // docker args joined by spaces → output; missing: docker fails
	noDock bool              // docker is not installed
	me     int               // the uid speedmatrix runs as
}

func (f *fakeHost) uid() int                       { return f.me }
func (f *fakeHost) listeners() ([]listener, error) { return f.ls, nil }
func (f *fakeHost) owners(inode string) ([]int, error) {
	return append([]int(nil), f.holds[inode]...), nil
}

func (f *fakeHost) process(pid int) (proc, error) {
	if p, ok := f.procs[pid]; ok {
		return p, nil
	}
	return proc{}, os.ErrNotExist
}

func (f *fakeHost) docker(_ context.Context, args ...string) ([]byte, error) {
	if f.noDock {
		return nil, errNoDocker
	}
	out, ok := f.dock[strings.Join(args, " ")]
	if !ok {
		return nil, errors.New("docker " + args[0] + ": Cannot connect to the Docker daemon at unix:///var/run/docker.sock")
	}
	return []byte(out), nil
}

// dockerInspect is testdata/docker-inspect.json: a vLLM container
// publishing 8000 on host port 8123.
func dockerInspect(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/docker-inspect.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
