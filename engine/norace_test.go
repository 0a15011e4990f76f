//go:build !race

package engine

// raceSlowdown is 1 without the race detector: tolerances as specified.
const raceSlowdown = 1
