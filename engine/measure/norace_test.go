//go:build !race

package measure

// raceSlowdown is 1 without the race detector: tolerances as specified.
const raceSlowdown = 1
