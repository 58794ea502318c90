//go:build race

package embedkit

// raceEnabled reports whether the race detector is on; the large
// streaming test sends less data then, because the detector slows CSV
// parsing tenfold.
const raceEnabled = true
