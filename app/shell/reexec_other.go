//go:build !unix

package shell

// reexec is not done where a process cannot replace itself: the app keeps
// Fyne's default draw cache lifetime there.
func reexec(exe string, args, env []string) {}
