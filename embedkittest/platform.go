package embedkittest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
	"github.com/embedkit/embedkit/middleware"
)

// Platform is an emulated platform account serving one test: the
// emulator behind a loopback httptest server, a fresh API key, and a
// client of it. It knows every secret it handed out (its API key, the
// fixture's keys, each embed session id and token), so that the checks
// of this package recognise them wherever they turn up. Create it with
// NewPlatform; it is safe for concurrent use.
type Platform struct {
	srv          *httptest.Server
	em           *emulator.Server
	client       *embedkit.Client
	apiKey       string
	deploymentID int64

	// logs checks the records of the client and of KitConfig's Logger,
	// then hands them to the handler of WithLogHandler (or drops them).
	logs *LogChecker

	mu       sync.Mutex
	fixed    []secret            // the API key and the fixture's keys
	captured map[string]secret   // value -> secret, from the platform's answers
	added    []secret            // AddSecret
	order    []string            // captured values in the order seen
	ids      map[string]struct{} // captured session ids, for the allowances
}

// Option configures NewPlatform.
type Option func(*options)

type options struct {
	fixture      *emulator.Fixture
	fixturePath  string
	deploymentID int64
	emuOpts      []emulator.Option
	clientOpts   []embedkit.Option
	logHandler   slog.Handler
}

// WithFixture starts the emulator with f instead of the demo fixture
// (emulator.DemoFixture). f is copied; it must have an active admin user
// to own the Platform's API key.
func WithFixture(f *emulator.Fixture) Option {
	return func(o *options) { o.fixture, o.fixturePath = f, "" }
}

// WithFixtureFile starts the emulator with the JSON fixture at path (see
// emulator.LoadFixture), for example "testdata/platform.json".
func WithFixtureFile(path string) Option {
	return func(o *options) { o.fixturePath, o.fixture = path, nil }
}

// WithDeployment chooses the fixture deployment KitConfig embeds. The
// default is the fixture's first deployment (1 in the demo fixture).
func WithDeployment(id int64) Option {
	return func(o *options) { o.deploymentID = id }
}

// WithEmulatorOptions passes options to emulator.New, for example
// emulator.WithClock to share a virtual clock with the host under test.
func WithEmulatorOptions(opts ...emulator.Option) Option {
	return func(o *options) { o.emuOpts = append(o.emuOpts, opts...) }
}

// WithClientOptions passes options to embedkit.New for Client, after the
// Platform's own (so they win): embedkit.WithRetry to stop retrying,
// embedkit.WithClock, and so on. The client keeps embedkit's production
// defaults otherwise. Passing embedkit.WithLogger replaces the checked
// logger; prefer WithLogHandler.
func WithClientOptions(opts ...embedkit.Option) Option {
	return func(o *options) { o.clientOpts = append(o.clientOpts, opts...) }
}

// WithLogHandler makes the records of Client and of KitConfig's Logger
// reach h once they have been checked for secrets, for tests that read
// the logs. By default they are checked and dropped. The emulator's own
// records are checked and always dropped.
func WithLogHandler(h slog.Handler) Option {
	return func(o *options) { o.logHandler = h }
}

// NewPlatform starts the emulator for t: an httptest server on a loopback
// address, closed by t.Cleanup, whose account is the demo fixture (or the
// one WithFixture or WithFixtureFile gives) plus a fresh random API key of
// the fixture's first active admin. Anything that goes wrong is fatal to t.
//
// The Platform's client and the Logger of KitConfig log through a
// LogChecker bound to t, so a test that uses them fails when a secret the
// Platform knows reaches a log record.
func NewPlatform(t testing.TB, opts ...Option) *Platform {
	t.Helper()
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	f, err := o.loadFixture()
	if err != nil {
		t.Fatalf("embedkittest: %v", err)
	}
	admin, err := adminUser(f)
	if err != nil {
		t.Fatalf("embedkittest: %v", err)
	}
	dep, err := deployment(f, o.deploymentID)
	if err != nil {
		t.Fatalf("embedkittest: %v", err)
	}

	p := &Platform{
		apiKey:       "ek_test_" + randomHex(16),
		deploymentID: dep,
		captured:     map[string]secret{},
		ids:          map[string]struct{}{},
	}
	p.fixed = append(p.fixed, secret{label: "API key", value: p.apiKey})
	for _, k := range f.APIKeys {
		if len(k.Key) >= minAutoSecret {
			p.fixed = append(p.fixed, secret{label: fmt.Sprintf("fixture API key of user %q", k.User), value: k.Key})
		}
	}

	// The emulator's records are checked without asking the emulator for
	// its sessions: it logs some records while it holds its own lock.
	emuLogs := newLogChecker(t, p, nil, false)
	emuOpts := append([]emulator.Option{emulator.WithLogger(slog.New(emuLogs))}, o.emuOpts...)
	p.em, err = emulator.New(f, emuOpts...)
	if err != nil {
		t.Fatalf("embedkittest: starting the emulator: %v", err)
	}
	if err := p.em.AddAPIKey(emulator.APIKey{Key: p.apiKey, User: admin}); err != nil {
		t.Fatalf("embedkittest: adding the test API key: %v", err)
	}

	p.srv = httptest.NewServer(&capture{p: p, next: p.em})
	t.Cleanup(p.srv.Close)

	p.logs = newLogChecker(t, p, o.logHandler, true)
	clientOpts := append([]embedkit.Option{embedkit.WithLogger(slog.New(p.logs))}, o.clientOpts...)
	p.client, err = embedkit.New(p.srv.URL, p.apiKey, clientOpts...)
	if err != nil {
		t.Fatalf("embedkittest: creating the client: %v", err)
	}
	return p
}

func (o *options) loadFixture() (*emulator.Fixture, error) {
	switch {
	case o.fixturePath != "":
		fh, err := os.Open(o.fixturePath)
		if err != nil {
			return nil, fmt.Errorf("fixture: %w", err)
		}
		defer fh.Close()
		f, err := emulator.LoadFixture(fh)
		if err != nil {
			return nil, fmt.Errorf("fixture %s: %w", o.fixturePath, err)
		}
		return f, nil
	case o.fixture != nil:
		return o.fixture, nil
	default:
		return emulator.DemoFixture(), nil
	}
}

// adminUser is the first active admin of f, who owns the test API key:
// generate-session and revoke need an admin key.
func adminUser(f *emulator.Fixture) (string, error) {
	for _, u := range f.Users {
		if u.Admin && (u.Active == nil || *u.Active) {
			return u.Username, nil
		}
	}
	return "", errors.New("the fixture has no active admin user to own the test API key")
}

// deployment checks id against f; 0 picks f's first deployment.
func deployment(f *emulator.Fixture, id int64) (int64, error) {
	if len(f.Deployments) == 0 {
		return 0, errors.New("the fixture has no deployment to embed")
	}
	if id == 0 {
		return f.Deployments[0].ID, nil
	}
	for _, d := range f.Deployments {
		if d.ID == id {
			return id, nil
		}
	}
	return 0, fmt.Errorf("WithDeployment(%d): the fixture has no such deployment", id)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// URL returns the emulator's base URL, such as "http://127.0.0.1:41235":
// the PlatformURL of KitConfig and the base URL of Client.
func (p *Platform) URL() string { return p.srv.URL }

// APIKey returns the Platform's API key: an unscoped admin key of the
// emulated account, random per Platform. It is a test secret: it opens
// nothing but this emulator, yet the checks of this package treat it as
// the real thing, so a test proves the host never logs or shows its key.
func (p *Platform) APIKey() string { return p.apiKey }

// Client returns a ready client of the emulator authenticated with
// APIKey, with embedkit's default retry policy and timeouts. Its records
// are checked for secrets (see NewPlatform).
func (p *Platform) Client() *embedkit.Client { return p.client }

// Emulator returns the emulator, for inspection (Sessions, Requests) and
// control (InjectFault, Advance, Reset).
func (p *Platform) Emulator() *emulator.Server { return p.em }

// DeploymentID returns the deployment KitConfig embeds.
func (p *Platform) DeploymentID() int64 { return p.deploymentID }

// KitConfig returns a middleware.Config wired to the Platform: Platform
// (the Client), PlatformURL (URL), Policy.DeploymentID and a Logger whose
// records are checked for secrets (see WithLogHandler to read them). A
// host test adds Identity, Store and Targets, and whatever else it tests:
//
//	cfg := p.KitConfig()
//	cfg.Identity, cfg.Store = identity, memstore.New()
//	cfg.Targets = map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
//	kit, err := middleware.New(cfg)
func (p *Platform) KitConfig() middleware.Config {
	return middleware.Config{
		Platform:    p.client,
		PlatformURL: p.srv.URL,
		Policy:      middleware.Policy{DeploymentID: p.deploymentID},
		Logger:      slog.New(p.logs),
	}
}

// AddSecret adds a secret that every check bound to p looks for from now
// on, labelled label in failure messages: a host's own key, a rotated
// platform key, a host session key. An empty value is ignored; any other
// value is matched as given, however short, so choose distinctive ones.
func (p *Platform) AddSecret(label, value string) {
	if value == "" {
		return
	}
	p.mu.Lock()
	p.added = append(p.added, secret{label: label, value: value})
	p.mu.Unlock()
}

// Secrets the Platform learns from its own answers, and the shortest
// value it learns automatically (shorter ones would match by chance: a
// fault's body, a tiny fixture key).
const (
	labelSessionID = "embed session id"
	labelDataToken = "data-API token"
	minAutoSecret  = 8
	maxCaptured    = 64 << 10
)

// record remembers a secret the platform answered.
func (p *Platform) record(label, value string) {
	if len(value) < minAutoSecret {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.captured[value]; ok {
		return
	}
	p.captured[value] = secret{label: label, value: value}
	p.order = append(p.order, value)
	if label == labelSessionID {
		p.ids[value] = struct{}{}
	}
}

// secrets returns every secret p knows. With sessions set, the ids of
// the emulator's sessions are added (a session minted by calling the
// emulator's handler directly has not passed through the capture).
func (p *Platform) secrets(sessions bool) []secret {
	if p == nil {
		return nil
	}
	if sessions {
		for _, s := range p.em.Sessions() {
			p.record(labelSessionID, s.SessionID)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]secret, 0, len(p.fixed)+len(p.order)+len(p.added))
	out = append(out, p.fixed...)
	for _, v := range p.order {
		out = append(out, p.captured[v])
	}
	return append(out, p.added...)
}

// isSessionID reports whether v is a session id the platform minted.
func (p *Platform) isSessionID(v string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.ids[v]
	return ok
}

// capture serves the emulator and reads the secrets out of the answers
// that carry them: generate-session (sessionId), the session exchange
// (the embed token), and the metadata and data-API token endpoints.
type capture struct {
	p    *Platform
	next http.Handler
}

func (c *capture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	label := secretEndpoint(r)
	if label == "" {
		c.next.ServeHTTP(w, r)
		return
	}
	tw := &teeWriter{ResponseWriter: w}
	c.next.ServeHTTP(tw, r)
	if tw.status != 0 && tw.status != http.StatusOK {
		return
	}
	var body any
	if json.Unmarshal(tw.buf.Bytes(), &body) != nil {
		return
	}
	keys := []string{"token"}
	switch label {
	case labelSessionID:
		keys = []string{"sessionId"}
	case labelDataToken:
		// The platform's DeploymentTokenResponse names it cubeApiToken; the
		// client reads "token" too, so both are secrets.
		keys = []string{"cubeApiToken", "token"}
	}
	for _, key := range keys {
		for _, v := range stringMembers(body, key) {
			c.p.record(label, v)
		}
	}
}

// secretEndpoint names what the answer to r carries, or "" when it
// carries no secret.
func secretEndpoint(r *http.Request) string {
	if r.Method != http.MethodPost {
		return ""
	}
	path := r.URL.Path
	switch {
	case path == "/api/v1/embed/generate-session":
		return labelSessionID
	case path == "/api/v1/embed/session/token":
		return "embed token"
	case strings.HasPrefix(path, "/api/v1/deployments/") && strings.HasSuffix(path, "/tokens-for-meta-sync"):
		return "metadata token"
	case strings.HasPrefix(path, "/api/v1/deployments/") && strings.HasSuffix(path, "/token"):
		return labelDataToken
	}
	return ""
}

// stringMembers returns the string values of members named key anywhere
// in v.
func stringMembers(v any, key string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if s, ok := m.(string); ok && k == key {
				out = append(out, s)
			} else {
				out = append(out, stringMembers(m, key)...)
			}
		}
	case []any:
		for _, m := range v {
			out = append(out, stringMembers(m, key)...)
		}
	}
	return out
}

// teeWriter copies the first maxCaptured bytes of an answer. It keeps the
// writer's Hijacker and Flusher, so the emulator's injected connection
// resets behave as without it.
type teeWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (w *teeWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if room := maxCaptured - w.buf.Len(); room > 0 {
		w.buf.Write(b[:min(len(b), room)])
	}
	return w.ResponseWriter.Write(b)
}

func (w *teeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *teeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
