//go:build race

package engine

// raceEnabled is set under the race detector, which slows every goroutine
// several times: long arithmetic of one goroutine skips there.
const raceEnabled = true
