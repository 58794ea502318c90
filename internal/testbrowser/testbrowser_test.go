package testbrowser

import (
	"testing"
	"time"
)

func TestSlowdown(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     float64
		wantErr  bool
	}{
		{name: "unset", in: "", want: 1},
		{name: "whole", in: "3", want: 3},
		{name: "fraction", in: "1.5", want: 1.5},
		{name: "below one", in: "0.5", wantErr: true},
		{name: "zero", in: "0", wantErr: true},
		{name: "negative", in: "-2", wantErr: true},
		{name: "huge", in: "1000", wantErr: true},
		{name: "word", in: "slow", wantErr: true},
		{name: "not a number", in: "NaN", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := slowdown(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("slowdown(%q) error %v, want error %v", tc.in, err, tc.wantErr)
			}
			if err == nil && got != tc.want {
				t.Errorf("slowdown(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestStepScales(t *testing.T) {
	t.Setenv(EnvSlowdown, "2.5")
	if got, want := Step(10*time.Second), 25*time.Second; got != want {
		t.Errorf("Step(10s) with %s=2.5 = %s, want %s", EnvSlowdown, got, want)
	}
	t.Setenv(EnvSlowdown, "fast")
	defer func() {
		if recover() == nil {
			t.Errorf("Step with %s=fast did not panic", EnvSlowdown)
		}
	}()
	Step(time.Second)
}
