package gorillasession_test

import (
	"testing"
	"time"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/storetest"
)

func TestMemoryRevocations(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		setup   func(t *testing.T, m *gorillasession.MemoryRevocations, now *time.Time)
		subject string
		key     string
		issued  time.Time
		want    bool
	}{
		{"nothing revoked", func(*testing.T, *gorillasession.MemoryRevocations, *time.Time) {}, "u1", "k1", t0, false},
		{"key revoked", func(t *testing.T, m *gorillasession.MemoryRevocations, _ *time.Time) {
			m.RevokeSession(t.Context(), "k1", t0.Add(time.Hour))
		}, "u1", "k1", t0, true},
		{"other key untouched", func(t *testing.T, m *gorillasession.MemoryRevocations, _ *time.Time) {
			m.RevokeSession(t.Context(), "k1", t0.Add(time.Hour))
		}, "u1", "k2", t0, false},
		{"key revoke expires", func(t *testing.T, m *gorillasession.MemoryRevocations, now *time.Time) {
			m.RevokeSession(t.Context(), "k1", t0.Add(time.Hour))
			*now = t0.Add(time.Hour)
		}, "u1", "k1", t0, false},
		{"revoke until the past is not kept", func(t *testing.T, m *gorillasession.MemoryRevocations, _ *time.Time) {
			m.RevokeSession(t.Context(), "k1", t0.Add(-time.Second))
		}, "u1", "k1", t0, false},
		{"empty key never matches", func(t *testing.T, m *gorillasession.MemoryRevocations, _ *time.Time) {
			m.RevokeSession(t.Context(), "", t0.Add(time.Hour))
		}, "u1", "", t0, false},
		{"subject revoke ends older sessions", func(t *testing.T, m *gorillasession.MemoryRevocations, now *time.Time) {
			*now = t0.Add(time.Minute)
			m.RevokeSubject(t.Context(), "u1")
		}, "u1", "k1", t0, true},
		{"subject revoke ends a session of the same instant", func(t *testing.T, m *gorillasession.MemoryRevocations, _ *time.Time) {
			m.RevokeSubject(t.Context(), "u1")
		}, "u1", "k1", t0, true},
		{"subject revoke spares newer sessions", func(t *testing.T, m *gorillasession.MemoryRevocations, _ *time.Time) {
			m.RevokeSubject(t.Context(), "u1")
		}, "u1", "k1", t0.Add(time.Millisecond), false},
		{"subject revoke spares other subjects", func(t *testing.T, m *gorillasession.MemoryRevocations, now *time.Time) {
			*now = t0.Add(time.Minute)
			m.RevokeSubject(t.Context(), "u1")
		}, "u2", "k1", t0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0
			m := gorillasession.NewMemoryRevocations(2 * time.Hour)
			m.Now = func() time.Time { return now }
			tt.setup(t, m, &now)
			got, err := m.Revoked(t.Context(), tt.subject, tt.key, tt.issued)
			if err != nil || got != tt.want {
				t.Errorf("Revoked = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestMemoryRevocationsConformance runs the shared suite of lists of
// ended sessions.
func TestMemoryRevocationsConformance(t *testing.T) {
	storetest.RunRevocations(t, func(t *testing.T, now func() time.Time) storetest.Revocations {
		m := gorillasession.NewMemoryRevocations(time.Hour)
		m.Now = now
		return m
	}, nil)
}
