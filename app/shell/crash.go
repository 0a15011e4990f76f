package shell

import (
	"fmt"
	"io"
	"os"
)

// logPanic writes a recovered panic and its stack to stderr, the app's log.
func logPanic(p any, stack []byte) {
	fmt.Fprintf(os.Stderr, "speedmatrix: recovered from an internal error in the window (the app goes on): %v\n%s", p, stack)
}

// crashed ends the app after a panic nothing recovered: one inside Fyne's
// own event handling, which unwinds the window's event loop. It logs the
// panic and its stack to log, stops the run (its finished cells are
// already saved), the simulator and any server Speed Matrix started, and
// returns what Main reports: where the run is kept.
func (u *ui) crashed(p any, stack []byte, log io.Writer) error {
	fmt.Fprintf(log, "speedmatrix: internal error in the window: %v\n%s", p, stack)
	dir := u.run.Saver.Dir
	func() {
		defer func() {
			if q := recover(); q != nil {
				fmt.Fprintf(log, "speedmatrix: stopping after the error failed too: %v\n", q)
			}
		}()
		u.shutdown()
	}()
	if dir == "" {
		return fmt.Errorf("the app stopped on an internal error (%v); no run had saved a cell: start the app again", p)
	}
	return fmt.Errorf("the app stopped on an internal error (%v); every finished cell of the run is saved in %s: start the app again and open it in History (Resume measures the rest)", p, dir)
}
