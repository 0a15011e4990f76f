package shell

import (
	"errors"
	"fmt"
	"io"
	"time"

	"speedmatrix/engine"
)

// quitGrace is how long Fyne gets to close the window and return from
// ShowAndRun after a quit, before the process exits anyway. Fyne 2.7's
// teardown can stall for good: the loop drains its queue of main-thread
// calls, then marks it drained; a call queued in between (the lifecycle
// goroutine runs Fyne's on-stopped preferences save that way, with
// DoAndWait) is never run nor answered, and ShowAndRun's final
// WaitForEvents waits on that goroutine forever.
const quitGrace = 20 * time.Second

// finishAutorun exports the run, waits for the charts to be drawn, takes
// the screenshot and quits; UI goroutine only. Every path ends in endAutorun.
func (u *ui) finishAutorun(rep *engine.Report, runErr error) {
	u.exitErr = runErr
	if rep == nil {
		u.exitErr = errors.Join(runErr, errors.New("the run produced no report"))
		u.endAutorun()
		return
	}
	if err := u.results.ExportAll(u.Opts.Export); err != nil {
		u.exitErr = errors.Join(u.exitErr, err)
	}
	if !u.results.Has {
		// Nothing is shown (the run measured no cell): no charts to wait for.
		u.endAutorun()
		return
	}
	// Wait for the charts, then give the window a few frames to draw them.
	rendered, settle := u.results.Rendered, u.settle
	go func() {
		<-rendered
		time.Sleep(settle)
		u.Do(func() {
			if err := u.results.Screenshot(u.Opts.Export); err != nil {
				u.exitErr = errors.Join(u.exitErr, err)
			}
			u.endAutorun()
		})
	}()
}

// AutorunRefused ends an autorun whose run could not start, with err
// (window, for the Run screen).
func (u *ui) AutorunRefused(err error) {
	u.exitErr = err
	// Quit from the event loop: this may run before the window is shown.
	go u.Do(u.endAutorun)
}

// endAutorun stops the simulator, servers and sampler and saves the
// settings while the event loop still runs, then quits: nothing is left for
// after ShowAndRun returns, so nothing there can keep the process alive.
func (u *ui) endAutorun() {
	u.shutdown()
	u.quit()
}

// exitAfterQuit returns the func the quit watchdog runs: it says that the
// window did not close, then exits as main would have (1 with the error, else 0).
func exitAfterQuit(err error, stderr io.Writer, exit func(code int)) func() {
	return func() {
		fmt.Fprintf(stderr, "speedmatrix: the window did not close within %v of quitting; exiting anyway\n", quitGrace)
		if err != nil {
			fmt.Fprintf(stderr, "speedmatrix: %v\n", err)
			exit(1)
			return
		}
		exit(0)
	}
}
