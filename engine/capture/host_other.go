//go:build !linux

package capture

import (
	"context"
	"errors"
)

// errNotLinux is why nothing is read on other systems: the sockets and
// processes are read from Linux's /proc.
var errNotLinux = errors.New("reading the server's process is supported on Linux only")

// procHost stands in for Linux's /proc: every question fails.
type procHost struct{}

func (procHost) uid() int                                          { return -1 }
func (procHost) listeners() ([]listener, error)                    { return nil, errNotLinux }
func (procHost) owners(string) ([]int, error)                      { return nil, errNotLinux }
func (procHost) process(int) (proc, error)                         { return proc{}, errNotLinux }
func (procHost) docker(context.Context, ...string) ([]byte, error) { return nil, errNotLinux }
