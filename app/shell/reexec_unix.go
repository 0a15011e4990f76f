//go:build unix

package shell

import "syscall"

// reexec replaces this process with exe; it returns only if it could not.
func reexec(exe string, args, env []string) { _ = syscall.Exec(exe, args, env) }
