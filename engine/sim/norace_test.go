//go:build !race

package sim

// raceEnabled is false without the race detector.
const raceEnabled = false
