package gorillasession

import (
	"context"
	"errors"
	"sync"
	"time"
)

// MemoryEndedLogins is a middleware.EndedLogins kept in process memory, for a single
// instance of the host app (several instances need a shared list). Records
// are dropped once the cookies they refuse have expired, so its size is
// bounded by the logouts within one cookie lifetime. The zero value is not
// ready; use NewMemoryEndedLogins.
type MemoryEndedLogins struct {
	// Now is the clock (default time.Now).
	Now func() time.Time

	lifetime time.Duration
	mu       sync.Mutex
	keys     map[string]time.Time // key → until
	subjects map[string]subjectRevoke
}

type subjectRevoke struct {
	at, until time.Time
}

// NewMemoryEndedLogins returns an empty list. lifetime is the longest a
// session cookie lives (the store's MaxAge, DefaultMaxAge for
// SecureCookieStore); an EndLoginsOf is kept that long.
func NewMemoryEndedLogins(lifetime time.Duration) *MemoryEndedLogins {
	if lifetime <= 0 {
		lifetime = DefaultMaxAge * time.Second
	}
	return &MemoryEndedLogins{
		lifetime: lifetime,
		keys:     make(map[string]time.Time),
		subjects: make(map[string]subjectRevoke),
	}
}

func (m *MemoryEndedLogins) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// EndLogin records the login session with key as ended until until.
func (m *MemoryEndedLogins) EndLogin(_ context.Context, key string, until time.Time) error {
	if key == "" {
		return errors.New("gorillasession: EndLogin: empty session key")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.prune(now)
	if until.After(now) && until.After(m.keys[key]) {
		m.keys[key] = until
	}
	return nil
}

// EndLoginsOf ends every login session of subject saved until now;
// sessions saved later (a new login) are not affected. Back-channel logout
// uses it to end cookie sessions too.
func (m *MemoryEndedLogins) EndLoginsOf(_ context.Context, subject string) error {
	if subject == "" {
		return errors.New("gorillasession: EndLoginsOf: empty subject")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.prune(now)
	m.subjects[subject] = subjectRevoke{at: now, until: now.Add(m.lifetime)}
	return nil
}

// LoginEnded reports whether the login session ended, by its key or by
// its subject.
func (m *MemoryEndedLogins) LoginEnded(_ context.Context, subject, key string, issued time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if until, ok := m.keys[key]; ok && key != "" && now.Before(until) {
		return true, nil
	}
	if s, ok := m.subjects[subject]; ok && now.Before(s.until) && !issued.After(s.at) {
		return true, nil
	}
	return false, nil
}

// prune drops records whose cookies have expired.
func (m *MemoryEndedLogins) prune(now time.Time) {
	for k, until := range m.keys {
		if !now.Before(until) {
			delete(m.keys, k)
		}
	}
	for s, r := range m.subjects {
		if !now.Before(r.until) {
			delete(m.subjects, s)
		}
	}
}
