package gorillasession

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// cookieSlack is how long past its MaxAge securecookie still accepts a
// cookie: it compares whole seconds, so a cookie signed at 12:00:00.9
// with a MaxAge of 2 s is accepted until 12:00:03. Records of ended
// logins are kept this much longer than the cookies they refuse.
const cookieSlack = time.Second

// MemoryEndedLogins is a middleware.EndedLogins kept in process memory, for a single
// instance of the host app (several instances need a shared list). Records
// are dropped once the cookies they refuse have expired, so its size is
// bounded by the logouts within one login lifetime. The zero value is not
// ready; use NewMemoryEndedLogins.
type MemoryEndedLogins struct {
	// Now is the clock (default time.Now).
	Now func() time.Time

	lifetime time.Duration
	mu       sync.Mutex
	keys     map[string]time.Time // key → until
	subjects map[string]endedSince
	sids     map[string]endedSince
}

// endedSince ends the logins saved at or before at, until until.
type endedSince struct {
	at, until time.Time
}

// NewMemoryEndedLogins returns an empty list. lifetime is the longest a
// login lives: Identity.MaxLifetime, which is the session cookie's MaxAge
// unless set (DefaultMaxAge for SecureCookieStore). An EndLoginsOf or
// EndLoginsOfSID is kept that long, and a second more (securecookie
// compares whole seconds, so it accepts a cookie up to MaxAge + 1 s after
// signing it).
func NewMemoryEndedLogins(lifetime time.Duration) *MemoryEndedLogins {
	if lifetime <= 0 {
		lifetime = DefaultMaxAge * time.Second
	}
	return &MemoryEndedLogins{
		lifetime: lifetime,
		keys:     make(map[string]time.Time),
		subjects: make(map[string]endedSince),
		sids:     make(map[string]endedSince),
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
	m.endSince(m.subjects, subject)
	return nil
}

// EndLoginsOfSID ends every login session made in the provider session
// sid saved until now; sessions saved later (a new login in the same
// provider session) are not affected. Back-channel logout by a token
// that names a sid uses it.
func (m *MemoryEndedLogins) EndLoginsOfSID(_ context.Context, sid string) error {
	if sid == "" {
		return errors.New("gorillasession: EndLoginsOfSID: empty sid")
	}
	m.endSince(m.sids, sid)
	return nil
}

// endSince records in set that the logins of name saved until now ended.
func (m *MemoryEndedLogins) endSince(set map[string]endedSince, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.prune(now)
	set[name] = endedSince{at: now, until: now.Add(m.lifetime + cookieSlack)}
}

// LoginEnded reports whether the login l ended, by its key, its subject
// or its provider session.
func (m *MemoryEndedLogins) LoginEnded(_ context.Context, l middleware.Login) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if until, ok := m.keys[l.Key]; ok && l.Key != "" && now.Before(until) {
		return true, nil
	}
	if s, ok := m.subjects[l.Subject]; ok && now.Before(s.until) && !l.Issued.After(s.at) {
		return true, nil
	}
	if s, ok := m.sids[l.ProviderSID]; ok && l.ProviderSID != "" && now.Before(s.until) && !l.Issued.After(s.at) {
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
	for _, set := range []map[string]endedSince{m.subjects, m.sids} {
		for s, r := range set {
			if !now.Before(r.until) {
				delete(set, s)
			}
		}
	}
}
