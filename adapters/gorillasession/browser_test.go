package gorillasession_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/sessions"

	"github.com/embedkit/embedkit/adapters/gorillasession"
)

const cookieName = "host-session"

var (
	keyOld = []byte("0123456789abcdef0123456789abcdef")
	keyNew = []byte("fedcba9876543210fedcba9876543210")
	encKey = []byte("0123456789abcdef")
)

// browser keeps cookies between requests, as a browser does.
type browser struct {
	t       *testing.T
	cookies map[string]*http.Cookie
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	return &browser{t: t, cookies: map[string]*http.Cookie{}}
}

// do runs fn as the handler of one request carrying the browser's cookies,
// keeps the cookies the response sets, and returns the response.
func (b *browser) do(fn func(w http.ResponseWriter, r *http.Request)) *http.Response {
	b.t.Helper()
	r := httptest.NewRequest(http.MethodGet, "https://app.example.com/dash/1", nil)
	for _, c := range b.cookies {
		r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	rec := httptest.NewRecorder()
	fn(rec, r)
	resp := rec.Result()
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
			continue
		}
		b.cookies[c.Name] = c
	}
	return resp
}

// cookie returns the value of the session cookie, or "".
func (b *browser) cookie() string {
	if c, ok := b.cookies[cookieName]; ok {
		return c.Value
	}
	return ""
}

// setCookie replaces the session cookie's value.
func (b *browser) setCookie(v string) {
	b.cookies[cookieName] = &http.Cookie{Name: cookieName, Value: v}
}

// newIdentity returns an Identity on a SecureCookieStore with keyPairs.
func newIdentity(t *testing.T, keyPairs ...[]byte) (*gorillasession.Identity, *sessions.CookieStore) {
	t.Helper()
	if len(keyPairs) == 0 {
		keyPairs = [][]byte{keyNew, nil}
	}
	store := gorillasession.SecureCookieStore(keyPairs...)
	return gorillasession.New(store, cookieName), store
}

// failingStore is a session backend that is down.
type failingStore struct{}

func (failingStore) Get(r *http.Request, name string) (*sessions.Session, error) {
	return sessions.NewSession(failingStore{}, name), errBackendDown
}

func (failingStore) New(r *http.Request, name string) (*sessions.Session, error) {
	return sessions.NewSession(failingStore{}, name), errBackendDown
}

func (failingStore) Save(*http.Request, http.ResponseWriter, *sessions.Session) error {
	return errBackendDown
}

var errBackendDown = errors.New("backend down")
