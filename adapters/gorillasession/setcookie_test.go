package gorillasession

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"
)

// upperCodec is a codec that is not securecookie's: its output need not
// be a valid cookie value, so the store's own Save must write it.
type upperCodec struct{}

func (upperCodec) Encode(name string, v any) (string, error) { return "plain value, with space", nil }
func (upperCodec) Decode(name, value string, dst any) error  { return nil }

// TestSetCookieLinesAsStoreWrites holds setCookieLines to what the
// store's Save writes, for every cookie option: the same line but for
// the encrypted value (fresh randomness each time), which must decode to
// the same values, and Expires, which may differ by the second between
// the two calls.
func TestSetCookieLinesAsStoreWrites(t *testing.T) {
	keys := [][]byte{bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)}
	tests := []struct {
		name   string
		cookie string
		opts   sessions.Options
		codecs []securecookie.Codec // nil: securecookie's, from keys
		lines  int                  // Set-Cookie lines the store writes
	}{
		{"defaults of SecureCookieStore", "s", sessions.Options{Path: "/", MaxAge: DefaultMaxAge, HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode}, nil, 1},
		{"domain, strict, partitioned", "host-session", sessions.Options{Path: "/app", Domain: "example.com", MaxAge: 60, Secure: true, SameSite: http.SameSiteStrictMode, Partitioned: true}, nil, 1},
		{"session cookie, SameSite none", "s", sessions.Options{SameSite: http.SameSiteNoneMode, Secure: true}, nil, 1},
		{"deleting (MaxAge -1)", "__Host-s", sessions.Options{Path: "/", MaxAge: -1, Secure: true}, nil, 1},
		{"another codec", "s", sessions.Options{Path: "/"}, []securecookie.Codec{upperCodec{}}, 1},
		{"a name Cookie.String refuses", "bad name", sessions.Options{Path: "/"}, nil, 0},
	}
	expires := regexp.MustCompile(`; Expires=[^;]*`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := sessions.NewCookieStore(keys...)
			UseCompactSerializer(cs)
			if tt.codecs != nil {
				cs.Codecs = tt.codecs
			}
			opts := tt.opts
			cs.Options = &opts
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			sess := sessions.NewSession(cs, tt.cookie)
			sess.Options = &opts
			sess.Values = map[any]any{"k": "v", "n": 3}

			got, err := setCookieLines(r, sess)
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			if err := cs.Save(r, rec, sess); err != nil {
				t.Fatal(err)
			}
			want := rec.Header().Values("Set-Cookie")
			if len(got) != tt.lines || len(want) != tt.lines {
				t.Fatalf("lines %q, store writes %q", got, want)
			}
			for i := range got {
				g, err1 := http.ParseSetCookie(got[i])
				w, err2 := http.ParseSetCookie(want[i])
				if err1 != nil || err2 != nil {
					t.Fatalf("parsing %q, %q: %v, %v", got[i], want[i], err1, err2)
				}
				if d := g.Expires.Sub(w.Expires); d < -2*time.Second || d > 2*time.Second {
					t.Errorf("Expires %v, store writes %v", g.Expires, w.Expires)
				}
				strip := func(line, value string) string {
					return expires.ReplaceAllString(regexp.MustCompile(regexp.QuoteMeta(value)).ReplaceAllLiteralString(line, "VALUE"), "")
				}
				if strip(got[i], g.Value) != strip(want[i], w.Value) {
					t.Errorf("line\n %s\nstore writes\n %s", got[i], want[i])
				}
				if tt.codecs != nil {
					continue
				}
				var gv, wv map[any]any
				if err := securecookie.DecodeMulti(tt.cookie, g.Value, &gv, cs.Codecs...); err != nil {
					t.Fatalf("our value does not decode: %v", err)
				}
				if err := securecookie.DecodeMulti(tt.cookie, w.Value, &wv, cs.Codecs...); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gv, wv) {
					t.Errorf("values %v, store's %v", gv, wv)
				}
			}
		})
	}
}
