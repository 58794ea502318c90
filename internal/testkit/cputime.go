package testkit

import (
	"testing"
	"time"
)

// CPUMeter reports the CPU time the whole process spends per op of a
// benchmark, as the metric cpu-ns/op: every thread's, the code under test,
// an in-process server and the runtime alike. Unlike ns/op it hardly moves
// when other work on the machine takes turns on the cores. Where the
// system does not report process CPU time, no metric is reported.
type CPUMeter struct {
	start time.Duration
	ok    bool
}

// StartCPU starts a CPUMeter; call it right before the measured loop.
func StartCPU() CPUMeter {
	d, ok := processCPU()
	return CPUMeter{start: d, ok: ok}
}

// Report records the CPU time per op since StartCPU as cpu-ns/op; call
// it right after the measured loop.
func (m CPUMeter) Report(b *testing.B) {
	end, ok := processCPU()
	if m.ok && ok && b.N > 0 {
		b.ReportMetric(float64(end-m.start)/float64(b.N), "cpu-ns/op")
	}
}
