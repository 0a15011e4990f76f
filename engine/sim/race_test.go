//go:build race

package sim

// raceEnabled is set under the race detector, which slows every goroutine
// several times: real-time pacing checks mean nothing there and skip.
const raceEnabled = true
