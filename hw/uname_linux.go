package hw

import "syscall"

// uname is `uname -snrvm`: "Linux vm 6.8.0-49-generic #49-Ubuntu SMP
// PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024 x86_64"; "" if it fails.
func uname() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	return cString(u.Sysname[:]) + " " + cString(u.Nodename[:]) + " " + cString(u.Release[:]) + " " +
		cString(u.Version[:]) + " " + cString(u.Machine[:])
}
