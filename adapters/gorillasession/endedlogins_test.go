package gorillasession_test

import (
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
)

func TestMemoryEndedLogins(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		setup   func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time)
		subject string
		key     string
		sid     string
		issued  time.Time
		want    bool
	}{
		{"nothing revoked", func(*testing.T, *gorillasession.MemoryEndedLogins, *time.Time) {}, "u1", "k1", "", t0, false},
		{"key revoked", func(t *testing.T, m *gorillasession.MemoryEndedLogins, _ *time.Time) {
			m.EndLogin(t.Context(), "k1", t0.Add(time.Hour))
		}, "u1", "k1", "", t0, true},
		{"other key untouched", func(t *testing.T, m *gorillasession.MemoryEndedLogins, _ *time.Time) {
			m.EndLogin(t.Context(), "k1", t0.Add(time.Hour))
		}, "u1", "k2", "", t0, false},
		{"key revoke expires", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			m.EndLogin(t.Context(), "k1", t0.Add(time.Hour))
			*now = t0.Add(time.Hour)
		}, "u1", "k1", "", t0, false},
		{"revoke until the past is not kept", func(t *testing.T, m *gorillasession.MemoryEndedLogins, _ *time.Time) {
			m.EndLogin(t.Context(), "k1", t0.Add(-time.Second))
		}, "u1", "k1", "", t0, false},
		{"empty key never matches", func(t *testing.T, m *gorillasession.MemoryEndedLogins, _ *time.Time) {
			m.EndLogin(t.Context(), "", t0.Add(time.Hour))
		}, "u1", "", "", t0, false},
		{"subject revoke ends older sessions", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			*now = t0.Add(time.Minute)
			m.EndLoginsOf(t.Context(), "u1")
		}, "u1", "k1", "", t0, true},
		{"subject revoke ends a session of the same instant", func(t *testing.T, m *gorillasession.MemoryEndedLogins, _ *time.Time) {
			m.EndLoginsOf(t.Context(), "u1")
		}, "u1", "k1", "", t0, true},
		{"subject revoke spares newer sessions", func(t *testing.T, m *gorillasession.MemoryEndedLogins, _ *time.Time) {
			m.EndLoginsOf(t.Context(), "u1")
		}, "u1", "k1", "", t0.Add(time.Millisecond), false},
		{"subject revoke spares other subjects", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			*now = t0.Add(time.Minute)
			m.EndLoginsOf(t.Context(), "u1")
		}, "u2", "k1", "", t0, false},
		{"sid revoke ends older logins of the provider session", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			*now = t0.Add(time.Minute)
			m.EndLoginsOfSID(t.Context(), "sid1")
		}, "u1", "k1", "sid1", t0, true},
		{"sid revoke spares a new login in the same provider session", func(t *testing.T, m *gorillasession.MemoryEndedLogins, _ *time.Time) {
			m.EndLoginsOfSID(t.Context(), "sid1")
		}, "u1", "k2", "sid1", t0.Add(time.Millisecond), false},
		{"sid revoke spares other provider sessions", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			*now = t0.Add(time.Minute)
			m.EndLoginsOfSID(t.Context(), "sid1")
		}, "u1", "k1", "sid2", t0, false},
		{"sid revoke is not a key revoke", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			*now = t0.Add(time.Minute)
			m.EndLoginsOfSID(t.Context(), "sid1")
		}, "u1", "sid1", "", t0, false},
		{"sid revoke lasts the lifetime and a second", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			m.EndLoginsOfSID(t.Context(), "sid1")
			*now = t0.Add(2*time.Hour + 999*time.Millisecond)
		}, "u1", "k1", "sid1", t0, true},
		{"sid revoke is dropped after the lifetime and a second", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			m.EndLoginsOfSID(t.Context(), "sid1")
			*now = t0.Add(2*time.Hour + time.Second)
		}, "u1", "k1", "sid1", t0, false},
		{"subject revoke lasts the lifetime and a second", func(t *testing.T, m *gorillasession.MemoryEndedLogins, now *time.Time) {
			m.EndLoginsOf(t.Context(), "u1")
			*now = t0.Add(2*time.Hour + 999*time.Millisecond)
		}, "u1", "k1", "", t0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0
			m := gorillasession.NewMemoryEndedLogins(2 * time.Hour)
			m.Now = func() time.Time { return now }
			tt.setup(t, m, &now)
			got, err := m.LoginEnded(t.Context(), middleware.Login{Subject: tt.subject, Key: tt.key, ProviderSID: tt.sid, Issued: tt.issued})
			if err != nil || got != tt.want {
				t.Errorf("LoginEnded = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestMemoryEndedLoginsConformance runs the shared suite of lists of
// ended sessions.
func TestMemoryEndedLoginsConformance(t *testing.T) {
	storetest.RunEndedLogins(t, func(t *testing.T, now func() time.Time) middleware.EndedLogins {
		m := gorillasession.NewMemoryEndedLogins(time.Hour)
		m.Now = now
		return m
	}, nil)
}
