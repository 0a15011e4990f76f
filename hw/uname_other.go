//go:build !linux

package hw

import "github.com/shirou/gopsutil/v4/host"

// uname is the system, host name, kernel and architecture as gopsutil
// reads them (the kernel's build string is Linux's only).
func uname() string {
	i, err := host.Info()
	if err != nil {
		return ""
	}
	return i.OS + " " + i.Hostname + " " + i.KernelVersion + " " + i.KernelArch
}
