//go:build !unix

package testkit

import "time"

// processCPU reports that process CPU time is not measured here.
func processCPU() (time.Duration, bool) { return 0, false }
