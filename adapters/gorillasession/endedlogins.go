package gorillasession

import (
	"context"
	"sync"
	"time"
)

// MemoryRevocations is a Revocations kept in process memory, for a single
// instance of the host app (several instances need a shared list). Records
// are dropped once the cookies they refuse have expired, so its size is
// bounded by the logouts within one cookie lifetime. The zero value is not
// ready; use NewMemoryRevocations.
type MemoryRevocations struct {
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

// NewMemoryRevocations returns an empty list. lifetime is the longest a
// session cookie lives (the store's MaxAge, DefaultMaxAge for
// SecureCookieStore); subject-wide revokes are kept that long.
func NewMemoryRevocations(lifetime time.Duration) *MemoryRevocations {
	if lifetime <= 0 {
		lifetime = DefaultMaxAge * time.Second
	}
	return &MemoryRevocations{
		lifetime: lifetime,
		keys:     make(map[string]time.Time),
		subjects: make(map[string]subjectRevoke),
	}
}

func (m *MemoryRevocations) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// RevokeSession records key as revoked until until.
func (m *MemoryRevocations) RevokeSession(_ context.Context, key string, until time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.prune(now)
	if until.After(now) && until.After(m.keys[key]) {
		m.keys[key] = until
	}
	return nil
}

// RevokeSubject revokes every session of subject saved until now; sessions
// saved later (a new login) are not affected. Its signature matches
// oidcclaims.SubjectRevoker, so back-channel logout can end cookie
// sessions too.
func (m *MemoryRevocations) RevokeSubject(_ context.Context, subject string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.prune(now)
	m.subjects[subject] = subjectRevoke{at: now, until: now.Add(m.lifetime)}
	return nil
}

// Revoked reports whether the session was revoked by key or by subject.
func (m *MemoryRevocations) Revoked(_ context.Context, subject, key string, issued time.Time) (bool, error) {
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
func (m *MemoryRevocations) prune(now time.Time) {
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
