package emulator

import "time"

// WithClock sets the base clock (default time.Now). The emulator's clock is
// the base clock plus the offset accumulated by Advance; every expiry
// (session window, token lifetimes, export jobs) reads it.
func WithClock(now func() time.Time) Option {
	return func(s *Server) {
		if now != nil {
			s.baseClock = now
		}
	}
}

// now returns the emulator's virtual time.
func (s *Server) now() time.Time {
	return s.baseClock().Add(time.Duration(s.offset.Load()))
}

// Advance moves the virtual clock forward by d (a negative d moves it back)
// and returns the new time. Reset brings it back to the base clock.
func (s *Server) Advance(d time.Duration) time.Time {
	s.offset.Add(int64(d))
	return s.now()
}
