//go:build !unix

package runs

import "os"

// lockFile takes no lock where flock is missing: the front ends build for
// Unix only (Fyne's cgo, NVML), so a folder is shared there as before.
func lockFile(*os.File) error { return nil }
