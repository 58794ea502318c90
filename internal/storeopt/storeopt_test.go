package storeopt

import (
	"testing"
	"time"
)

func TestCommon(t *testing.T) {
	c := Defaults()
	if c.MaxPerKey != DefaultMaxPerKey || c.Now == nil {
		t.Fatalf("Defaults() = %+v", c)
	}
	for _, n := range []int{0, -1} {
		c.SetMaxPerKey(n)
		if c.MaxPerKey != DefaultMaxPerKey {
			t.Errorf("SetMaxPerKey(%d) changed the bound to %d", n, c.MaxPerKey)
		}
	}
	c.SetMaxPerKey(7)
	if c.MaxPerKey != 7 {
		t.Errorf("SetMaxPerKey(7) left %d", c.MaxPerKey)
	}
	fixed := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c.SetClock(nil)
	if c.Now == nil {
		t.Fatal("SetClock(nil) removed the clock")
	}
	c.SetClock(func() time.Time { return fixed })
	if !c.Now().Equal(fixed) {
		t.Error("SetClock did not set the clock")
	}
}
