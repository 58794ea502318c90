package identitytest_test

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/embedkit/embedkit/adapters/identitytest"
	"github.com/embedkit/embedkit/middleware"
)

// mapIdentity is the smallest correct server-side Identity: sessions in a
// map under a random token in a cookie, each login with a key of its own.
// The suite must pass it.
type mapIdentity struct {
	kit *middleware.Kit

	mu       sync.Mutex
	sessions map[string]middleware.Viewer // token → login
}

const cookie = "map-session"

func (m *mapIdentity) current(r *http.Request) (string, middleware.Viewer, bool) {
	c, err := r.Cookie(cookie)
	if err != nil {
		return "", middleware.Viewer{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.sessions[c.Value]
	return c.Value, v, ok
}

func (m *mapIdentity) Viewer(r *http.Request) (*middleware.Viewer, error) {
	_, v, ok := m.current(r)
	if !ok {
		return nil, middleware.ErrNoViewer
	}
	return &v, nil
}

func (m *mapIdentity) Save(w http.ResponseWriter, r *http.Request, v *middleware.Viewer) error {
	if old, prev, ok := m.current(r); ok {
		if m.kit == nil {
			return errors.New("mapIdentity: no Kit to revoke the earlier login's embeds")
		}
		if err := m.kit.RevokeSessionKey(r.Context(), prev.SessionKey); err != nil {
			return err
		}
		m.mu.Lock()
		delete(m.sessions, old)
		m.mu.Unlock()
	}
	login := *v
	login.SessionKey = rand.Text()
	token := rand.Text()
	m.mu.Lock()
	m.sessions[token] = login
	m.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: cookie, Value: token, Path: "/", HttpOnly: true})
	return nil
}

func (m *mapIdentity) Clear(w http.ResponseWriter, r *http.Request) error {
	if token, _, ok := m.current(r); ok {
		m.mu.Lock()
		delete(m.sessions, token)
		m.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: cookie, Path: "/", MaxAge: -1})
	return nil
}

func (m *mapIdentity) endWhere(match func(middleware.Viewer) bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for token, v := range m.sessions {
		if match(v) {
			delete(m.sessions, token)
		}
	}
	return nil
}

func TestRunOnAMapIdentity(t *testing.T) {
	identitytest.Run(t, func(*testing.T) identitytest.Harness {
		m := &mapIdentity{sessions: map[string]middleware.Viewer{}}
		return identitytest.Harness{
			Identity: m,
			SignIn:   m.Save,
			SignOut:  m.Clear,
			Join:     func(kit *middleware.Kit) { m.kit = kit },
			EndLoginsOf: func(_ context.Context, subject string) error {
				return m.endWhere(func(v middleware.Viewer) bool { return v.Subject == subject })
			},
			EndLoginsOfSID: func(_ context.Context, sid string) error {
				return m.endWhere(func(v middleware.Viewer) bool { return v.ProviderSID == sid })
			},
		}
	})
}
