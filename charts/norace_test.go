//go:build !race

package charts

const raceEnabled = false
