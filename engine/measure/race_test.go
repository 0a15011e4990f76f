//go:build race

package measure

// raceSlowdown widens timing tolerances: the race detector slows every
// goroutine several times, so the fake server's and the client's timing
// noise grows with it.
const raceSlowdown = 5
