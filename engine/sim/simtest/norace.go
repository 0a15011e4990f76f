//go:build !race

package simtest

// raceEnabled is whether the race detector is on (ParallelWaits).
const raceEnabled = false
