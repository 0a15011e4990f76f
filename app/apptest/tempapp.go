package apptest

import (
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// tempAppBatch is how many test apps newTempApp makes at a time.
const tempAppBatch = 64

// tempApps are test apps made ahead, a batch at a time: test.NewApp
// empties Fyne's font and text-size caches, so with an app made as each
// test starts (test.NewTempApp) every test measured every text of the
// screens again, about a second of each test under -race.
var tempApps struct {
	mu   sync.Mutex
	made []fyne.App
}

// nextTempApp takes a fresh test app, making a batch when none is left.
func nextTempApp() fyne.App {
	tempApps.mu.Lock()
	defer tempApps.mu.Unlock()
	if len(tempApps.made) == 0 {
		for range tempAppBatch {
			tempApps.made = append(tempApps.made, test.NewApp())
		}
	}
	a := tempApps.made[len(tempApps.made)-1]
	tempApps.made = tempApps.made[:len(tempApps.made)-1]
	return a
}

// NewTempApp is test.NewTempApp without emptying Fyne's caches: a fresh
// test app (its own preferences, settings and theme) is the current app
// until t ends, then another fresh one is.
//
// As t ends, Fyne also drops the renderers nothing has drawn for its
// cache's lifetime (FYNE_CACHE; the app's own in app/shell's tests), as
// the real driver does while it paints. Fyne's test driver does that only
// when a canvas is captured, so every window the tests made stayed in its
// cache: app/shell's test binary reached 2.2 GB, and its garbage
// collector scanned all of it (-race: 297 s of CPU, against 268 s with
// this).
func NewTempApp(t testing.TB) fyne.App {
	a := nextTempApp()
	fyne.SetCurrentApp(a)
	t.Cleanup(func() {
		fyne.SetCurrentApp(nextTempApp())
		test.NewCanvas().Capture() // Fyne's cache.Clean, its one public door
	})
	return a
}
