package loadtest

import (
	"context"
	"testing"
	"time"
)

func TestRunSmall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Viewers: 50, Duration: 2 * time.Second, Latency: 5 * time.Millisecond})
	t.Log("\n" + rep.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Loads < int64(rep.Options.Viewers) {
		t.Errorf("%d loads for %d viewers: not every viewer loaded a frame", rep.Loads, rep.Options.Viewers)
	}
	if rep.Errors != 0 || rep.Lost != 0 || rep.Queued != 0 || rep.Logouts != int64(rep.Options.Viewers) {
		t.Errorf("errors %d, lost %d, queued %d, logouts %d", rep.Errors, rep.Lost, rep.Queued, rep.Logouts)
	}
	if rep.FrameP50 <= 0 || rep.AddedP99 > rep.FrameP99 {
		t.Errorf("frame p50 %s, added p99 %s > frame p99 %s", rep.FrameP50, rep.AddedP99, rep.FrameP99)
	}
}

func TestHistogramQuantiles(t *testing.T) {
	cases := []struct {
		name   string
		values []time.Duration
		q      float64
		want   time.Duration
	}{
		{name: "single value", values: []time.Duration{20 * time.Millisecond}, q: 0.5, want: 20 * time.Millisecond},
		{name: "median of three", values: []time.Duration{time.Millisecond, 2 * time.Millisecond, 30 * time.Millisecond}, q: 0.5, want: 2 * time.Millisecond},
		{name: "p99 of a tail", values: append(make([]time.Duration, 99), time.Second), q: 0.99, want: 0},
		{name: "max", values: []time.Duration{time.Microsecond, time.Second}, q: 1, want: time.Second},
		{name: "small values are exact", values: []time.Duration{7, 9, 11}, q: 0.5, want: 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h histogram
			for _, v := range tc.values {
				h.add(v)
			}
			got := h.quantile(tc.q)
			if lo, hi := tc.want-tc.want/50, tc.want; got < lo || got > hi {
				t.Errorf("quantile(%v) = %s, want %s within 2%% below", tc.q, got, tc.want)
			}
		})
	}
}
