//go:build !race

package embedkit

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
