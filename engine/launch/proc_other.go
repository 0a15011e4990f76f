//go:build !unix

package launch

import (
	"errors"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func checkPlatform() error {
	return errors.New("start vllm: launching a server needs Linux (vLLM runs on Linux): start it there and measure it as an endpoint")
}

func signalGroup(int, syscall.Signal) error { return nil }

func groupAlive(int) bool { return false }
