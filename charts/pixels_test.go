package charts

import "testing"

// pixelTest skips t under the race detector. The pictures are drawn by one
// goroutine, pixel by pixel, which -race slows tenfold (the five tests that
// call this took 56 of charts' 80 s under -race; the whole package takes
// 7 s without) and can find no race in: the concurrency of charts (the font faces, Pictures' cache)
// is what the app's and the CLI's race tests exercise. scripts/test.sh runs
// charts' tests without -race as well, so they run in CI all the same.
func pixelTest(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("pixel loops of one goroutine: run without -race (scripts/test.sh does)")
	}
}
