//go:build !race

package engine

// raceEnabled is false without the race detector.
const raceEnabled = false
