package gorillasession_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/sessions"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/storetest"
	"github.com/embedkit/embedkit/middleware"
)

// browserStore drives a Store through a browser: each call is one request
// carrying the browser's cookie. Calls are serialised, as one browser's
// requests must be for a cookie store to keep every record (see Store).
type browserStore struct {
	mu    sync.Mutex
	b     *browser
	store *gorillasession.Store
}

func (bs *browserStore) Add(ctx context.Context, key string, m middleware.Minted) error {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var err error
	bs.b.do(func(w http.ResponseWriter, r *http.Request) { err = bs.store.ForRequest(w, r).Add(ctx, key, m) })
	return err
}

func (bs *browserStore) Take(ctx context.Context, key string) ([]middleware.Minted, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var (
		ms  []middleware.Minted
		err error
	)
	bs.b.do(func(w http.ResponseWriter, r *http.Request) { ms, err = bs.store.ForRequest(w, r).Take(ctx, key) })
	return ms, err
}

func TestStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) middleware.SessionStore {
		id, _ := newIdentity(t)
		return &browserStore{b: newBrowser(t), store: id.SessionStore()}
	})
}

func TestStoreNeedsRequest(t *testing.T) {
	id, _ := newIdentity(t)
	s := id.SessionStore()
	if err := s.Add(t.Context(), "s:a", middleware.Minted{}); err == nil || !strings.Contains(err.Error(), "ForRequest") {
		t.Errorf("Add without request: %v", err)
	}
	if _, err := s.Take(t.Context(), "s:a"); err == nil {
		t.Error("Take without request: no error")
	}
}

// TestStoreBound fills the cookie next to a large viewer: the records that
// expire first are dropped and the cookie stays within MaxCookieBytes.
func TestStoreBound(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	id, _ := newIdentity(t, keyNew, encKey)
	id.Now = func() time.Time { return now }
	b := newBrowser(t)
	viewer := &middleware.Viewer{Subject: "u1", SessionKey: "k1"}
	for i := range 30 {
		viewer.Groups = append(viewer.Groups, fmt.Sprintf("group-with-a-long-name-%02d", i))
	}
	login(t, b, id, viewer)
	store := id.SessionStore()
	const n = 40
	for i := range n {
		m := middleware.Minted{
			SessionID: fmt.Sprintf("0b8f7a52-4a4c-4a59-9a1e-%012d", i),
			Subject:   "u1",
			ExpiresAt: now.Add(24*time.Hour + time.Duration(i)*time.Minute),
		}
		resp := b.do(func(w http.ResponseWriter, r *http.Request) {
			if err := store.ForRequest(w, r).Add(t.Context(), viewer.Key(), m); err != nil {
				t.Fatalf("Add %d: %v", i, err)
			}
		})
		if line := resp.Header.Get("Set-Cookie"); len(line) > gorillasession.MaxCookieBytes {
			t.Fatalf("Add %d: cookie is %d bytes", i, len(line))
		}
	}
	var got []middleware.Minted
	b.do(func(w http.ResponseWriter, r *http.Request) {
		var err error
		if got, err = store.ForRequest(w, r).Take(t.Context(), viewer.Key()); err != nil {
			t.Fatal(err)
		}
	})
	if len(got) == 0 || len(got) == n {
		t.Fatalf("kept %d of %d records; want some dropped, some kept", len(got), n)
	}
	t.Logf("kept %d of %d records", len(got), n)
	for i, m := range got {
		want := fmt.Sprintf("0b8f7a52-4a4c-4a59-9a1e-%012d", n-len(got)+i)
		if m.SessionID != want {
			t.Errorf("record %d = %s, want %s (the newest are kept)", i, m.SessionID, want)
		}
	}
	if v, err := viewerOf(t, b, id); err != nil || v.Subject != "u1" {
		t.Fatalf("viewer lost: %v, %v", v, err)
	}
}

func TestStoreWithViewer(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	id, _ := newIdentity(t)
	id.Now = func() time.Time { return now }
	b := newBrowser(t)
	v := &middleware.Viewer{Subject: "u1", SessionKey: "k1"}
	m := middleware.Minted{SessionID: "sess-1", Subject: "u1", ExpiresAt: now.Add(time.Hour)}

	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"login and mint in one request", func(t *testing.T) {
			b.do(func(w http.ResponseWriter, r *http.Request) {
				if err := id.Save(w, r, v); err != nil {
					t.Fatal(err)
				}
				if err := id.SessionStore().ForRequest(w, r).Add(t.Context(), v.Key(), m); err != nil {
					t.Fatal(err)
				}
				if n := len(w.Header().Values("Set-Cookie")); n != 1 {
					t.Errorf("Set-Cookie lines = %d, want 1", n)
				}
			})
		}},
		{"viewer survives the add", func(t *testing.T) {
			if got, err := viewerOf(t, b, id); err != nil || got.Subject != "u1" {
				t.Fatalf("Viewer = %v, %v", got, err)
			}
		}},
		{"expired add is not kept", func(t *testing.T) {
			old := middleware.Minted{SessionID: "sess-old", Subject: "u1", ExpiresAt: now.Add(-time.Second)}
			b.do(func(w http.ResponseWriter, r *http.Request) {
				if err := id.SessionStore().ForRequest(w, r).Add(t.Context(), v.Key(), old); err != nil {
					t.Fatal(err)
				}
			})
		}},
		{"logout takes, then clears", func(t *testing.T) {
			b.do(func(w http.ResponseWriter, r *http.Request) {
				got, err := id.SessionStore().ForRequest(w, r).Take(t.Context(), v.Key())
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 || got[0].SessionID != m.SessionID || got[0].Subject != m.Subject || !got[0].ExpiresAt.Equal(m.ExpiresAt) {
					t.Errorf("Take = %+v, want [%+v]", got, m)
				}
				if err := id.Clear(w, r); err != nil {
					t.Fatal(err)
				}
				if n := len(w.Header().Values("Set-Cookie")); n != 1 {
					t.Errorf("Set-Cookie lines = %d, want 1", n)
				}
			})
			if _, err := viewerOf(t, b, id); !errors.Is(err, middleware.ErrNoViewer) {
				t.Errorf("after logout: %v", err)
			}
		}},
		{"take from an undecodable cookie returns nothing", func(t *testing.T) {
			b.setCookie("tampered")
			b.do(func(w http.ResponseWriter, r *http.Request) {
				got, err := id.SessionStore().ForRequest(w, r).Take(t.Context(), v.Key())
				if err != nil || len(got) != 0 {
					t.Errorf("Take = %v, %v; want nothing", got, err)
				}
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

// TestServerSideSessions shows the path for users too large for a cookie:
// with a server-side gorilla store the cookie holds only an id.
func TestServerSideSessions(t *testing.T) {
	dir := t.TempDir()
	fs := sessions.NewFilesystemStore(dir, keyNew)
	fs.MaxLength(0)
	id := gorillasession.New(fs, cookieName)
	v := &middleware.Viewer{Subject: "u1", SessionKey: "k1"}
	for i := range 200 {
		v.Groups = append(v.Groups, fmt.Sprintf("%020d", i))
	}
	b := newBrowser(t)
	login(t, b, id, v)
	got, err := viewerOf(t, b, id)
	if err != nil || len(got.Groups) != 200 {
		t.Fatalf("Viewer = %v, %v", got, err)
	}

	// Session files removed on the server: logged out, not a 500.
	files, _ := filepath.Glob(filepath.Join(dir, "session_*"))
	if len(files) == 0 {
		t.Fatal("no session file written")
	}
	for _, f := range files {
		os.Remove(f)
	}
	if _, err := viewerOf(t, b, id); !errors.Is(err, middleware.ErrNoViewer) {
		t.Fatalf("after the session file is gone: %v, want ErrNoViewer", err)
	}
}
