package embedkittest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// CheckOption permits a session id in one of the places where the kit
// puts it by design. Without options a response may hold no secret at
// all. An option never permits the API key or a token, and permits only
// ids the Platform minted, in exactly the named place, pointing at the
// Platform's URL: an id anywhere else in the same response still fails.
type CheckOption func(*allowances)

type allowances struct {
	frameRedirect bool
	sessionAnswer bool
	iframeSrc     bool
}

// AllowFrameRedirect permits a session id in the session (or sessionId)
// query parameter of the Location header of a 303 See Other to the
// Platform: the answer of middleware.Kit.FrameHandler and FrameFunc to a
// GET, which mints and redirects the iframe to the platform. The id is
// single-use and valid for five minutes, and the redirect has no body.
func AllowFrameRedirect() CheckOption {
	return func(a *allowances) { a.frameRedirect = true }
}

// AllowSessionAnswer permits a session id in a 200 application/json answer
// shaped like middleware.Kit.SessionHandler's (mounted at
// middleware.DefaultSessionPath), {"url": "...", "sessionId": "...",
// "expiresAt": "..."}: as the "sessionId" member, and in the session
// query parameter of the "url" member when that URL is the Platform's.
func AllowSessionAnswer() CheckOption {
	return func(a *allowances) { a.sessionAnswer = true }
}

// AllowIframeSrc permits a session id in the session (or sessionId)
// query parameter of the src attribute of an <iframe> element whose URL
// is the Platform's: a server-rendered page that puts the URL of
// middleware.Kit.PageFrame ({{.Frame.URL}}) or Kit.FrameURL into an
// iframe directly.
func AllowIframeSrc() CheckOption {
	return func(a *allowances) { a.iframeSrc = true }
}

// Recorder is an httptest.ResponseRecorder for a handler of the host
// that fails the test when the response holds a secret the Platform
// knows: the API key, a session id or a token, or a
// secret of Platform.AddSecret. Headers (names and values) and the body
// are checked, when Check is called and again when the test ends, with
// the secrets known by then. Each distinct leak fails the test once.
type Recorder struct {
	*httptest.ResponseRecorder
	t     testing.TB
	p     *Platform
	allow allowances
	rep   *reporter
}

// NewRecorder returns a Recorder for one response. opts name the places
// where a session id is expected, for example
//
//	w := embedkittest.NewRecorder(t, p, embedkittest.AllowFrameRedirect())
//	kit.FrameHandler().ServeHTTP(w, r)
//
// p must not be nil.
func NewRecorder(t testing.TB, p *Platform, opts ...CheckOption) *Recorder {
	t.Helper()
	r := &Recorder{ResponseRecorder: httptest.NewRecorder(), t: t, p: p, rep: newReporter(t, false)}
	for _, o := range opts {
		if o != nil {
			o(&r.allow)
		}
	}
	t.Cleanup(r.Check)
	return r
}

// Check checks what was written so far. Call it once the handler has
// returned.
func (r *Recorder) Check() {
	r.t.Helper()
	res := r.Result()
	checkHTTP(r.rep, r.p, r.allow, res.StatusCode, res.Header, r.Body.Bytes())
}

// CheckResponse fails t when resp holds a secret the Platform knows, as
// Recorder does, for a response read from a real server (an
// httptest.Server of the host app). It checks the one response it is
// given: with a client that follows redirects, that is the last of the
// chain, so a redirect (the frame endpoint's 303, a login's) is checked
// only by a client that does not follow them (CheckRedirect returning
// http.ErrUseLastResponse). It reads the whole body and puts an unread
// copy back, so the caller can still read resp.Body. p must not be nil.
func CheckResponse(t testing.TB, p *Platform, resp *http.Response, opts ...CheckOption) {
	t.Helper()
	var allow allowances
	for _, o := range opts {
		if o != nil {
			o(&allow)
		}
	}
	var body []byte
	if resp.Body != nil {
		var err error
		body, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			t.Errorf("embedkittest: reading the response body: %v", err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	checkHTTP(newReporter(t, false), p, allow, resp.StatusCode, resp.Header, body)
}

// checkHTTP checks a response's headers and body, with the allowances
// taken out.
func checkHTTP(rep *reporter, p *Platform, allow allowances, status int, header http.Header, body []byte) {
	rep.t.Helper()
	secrets := p.secrets(true) // first: it learns the emulator's session ids
	where := fmt.Sprintf("response %d", status)
	names := make([]string, 0, len(header))
	for name := range header {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		rep.check(where+", a header name", name, secrets)
		for _, v := range header[name] {
			if allow.frameRedirect && status == http.StatusSeeOther && http.CanonicalHeaderKey(name) == "Location" {
				v = p.stripSessionParam(v)
			}
			rep.check(where+", header "+quote(name), v, secrets)
		}
	}
	text := string(body)
	if allow.sessionAnswer && status == http.StatusOK && strings.HasPrefix(header.Get("Content-Type"), "application/json") {
		text = p.withoutSessionAnswer(body)
	}
	if allow.iframeSrc {
		text = p.withoutIframeSrc(text)
	}
	rep.check(where+", body", text, secrets)
}

// stripSessionParam returns raw without the session and sessionId query
// parameters whose value is a session id the Platform minted, when raw is
// a URL of the Platform; otherwise raw unchanged.
func (p *Platform) stripSessionParam(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme+"://"+u.Host, p.srv.URL) {
		return raw
	}
	q := u.Query()
	changed := false
	for _, name := range []string{"session", "sessionId"} {
		var kept []string
		for _, v := range q[name] {
			if p.isSessionID(v) {
				changed = true
			} else {
				kept = append(kept, v)
			}
		}
		if kept == nil {
			delete(q, name)
		} else {
			q[name] = kept
		}
	}
	if !changed {
		return raw
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// withoutSessionAnswer returns the JSON body with the permitted session
// ids taken out of its "sessionId" and "url" members, or the body as it
// is when it is not a JSON object.
func (p *Platform) withoutSessionAnswer(body []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return string(body)
	}
	var s string
	if raw, ok := m["sessionId"]; ok && json.Unmarshal(raw, &s) == nil && p.isSessionID(s) {
		m["sessionId"] = json.RawMessage(`""`)
	}
	if raw, ok := m["url"]; ok && json.Unmarshal(raw, &s) == nil {
		if stripped := p.stripSessionParam(s); stripped != s {
			m["url"], _ = marshalNoEscape(stripped)
		}
	}
	out, err := marshalNoEscape(m)
	if err != nil {
		return string(body)
	}
	return string(out)
}

// marshalNoEscape is json.Marshal without HTML escaping, so that a secret
// with & < > in it still reads as itself.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// iframeSrc finds the src attribute of an iframe start tag.
var iframeSrc = regexp.MustCompile(`(?is)(<iframe\b[^>]*?\bsrc\s*=\s*)("[^"]*"|'[^']*')`)

// withoutIframeSrc returns body with the permitted session ids taken out
// of the src attributes of its iframes.
func (p *Platform) withoutIframeSrc(body string) string {
	return iframeSrc.ReplaceAllStringFunc(body, func(m string) string {
		sub := iframeSrc.FindStringSubmatch(m)
		quoted := sub[2]
		src := html.UnescapeString(quoted[1 : len(quoted)-1])
		stripped := p.stripSessionParam(src)
		if stripped == src {
			return m
		}
		return sub[1] + `"` + html.EscapeString(stripped) + `"`
	})
}
