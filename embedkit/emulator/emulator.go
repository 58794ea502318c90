package emulator

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is an emulated platform account: an http.Handler serving the
// management API, the embed pages and the control API from memory. It is
// safe for concurrent use. Create it with New.
type Server struct {
	// secret signs embed tokens; random per Server.
	secret []byte
	// metaSecret and dataSecret sign metadata and data-API tokens, so that
	// neither is ever accepted where an embed token is expected.
	metaSecret []byte
	dataSecret []byte

	logger    *slog.Logger
	baseClock func() time.Time
	offset    atomic.Int64 // time.Duration added to baseClock by Advance

	mux *http.ServeMux

	mu      sync.Mutex
	st      *state
	initial *Fixture
	added   []APIKey // keys injected with AddAPIKey; they survive Reset

	faults  faultSet
	reqlog  requestRing
	started time.Time

	// controlHosts are the host names the control API answers to besides
	// loopback addresses, localhost and the address a request arrived on.
	controlHosts hostSet
}

// Option configures a Server.
type Option func(*Server)

// WithLogger sets the logger of request and lifecycle records. The default
// discards them. Records never contain API keys, tokens or session ids.
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.logger = l
		}
	}
}

// WithControlHosts names further hosts whose requests the control API
// (/_emulator/...) accepts, for an emulator reached by a name other than
// a loopback address: a container's service name such as "emulator", or
// a machine's name. Each entry is a host name or an IP address; a port,
// if given, is ignored, and names compare case-insensitively. Loopback
// addresses, "localhost" and the IP address a request's connection was
// accepted on are always accepted. The management API and the embed pages
// answer any host. See "Control API" in the package documentation.
func WithControlHosts(hosts ...string) Option {
	return func(s *Server) { s.controlHosts.add(hosts...) }
}

// New returns a Server whose state is the fixture f (nil means the built-in
// demo fixture). The fixture is copied; later changes to f have no effect.
func New(f *Fixture, opts ...Option) (*Server, error) {
	if f == nil {
		f = DemoFixture()
	} else {
		if err := f.validate(); err != nil {
			return nil, err
		}
		f = f.clone()
	}
	s := &Server{
		logger:    slog.New(slog.DiscardHandler),
		baseClock: time.Now,
		mux:       http.NewServeMux(),
		initial:   f,
	}
	for _, o := range opts {
		o(s)
	}
	s.secret = make([]byte, 32)
	if _, err := rand.Read(s.secret); err != nil {
		return nil, fmt.Errorf("emulator: generating signing secret: %w", err)
	}
	s.metaSecret = deriveKey(s.secret, "metadata token")
	s.dataSecret = deriveKey(s.secret, "data api token")
	s.reqlog.init(requestLogSize)
	s.st = newState(f.clone(), s.now())
	s.routes()
	s.started = s.now()
	return s, nil
}

func deriveKey(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// Reset replaces the whole state with the fixture f (nil means the fixture
// the Server was created with): sessions, external users, exports,
// deployment changes, faults and the request log are dropped and the
// clock goes back to the base clock. Keys added with AddAPIKey are kept
// when their user and deployments exist in the new fixture.
func (s *Server) Reset(f *Fixture) error {
	if f == nil {
		f = s.initial
	}
	if err := f.validate(); err != nil {
		return err
	}
	f = f.clone()
	s.offset.Store(0)
	s.faults.clear()
	s.reqlog.clear()
	st := newState(f, s.now())
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.added[:0]
	for _, k := range s.added {
		if st.addKey(k) == nil {
			kept = append(kept, k)
		}
	}
	s.added = kept
	s.st = st
	s.logger.Info("emulator state reset", "tenant", f.Tenant, "deployments", len(f.Deployments))
	return nil
}

// AddAPIKey adds an API key to the running account, for example one
// generated at start by an application that embeds the emulator. The key
// is checked like a fixture key; it survives Reset.
func (s *Server) AddAPIKey(k APIKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.st.addKey(k); err != nil {
		return err
	}
	s.added = append(s.added, k)
	return nil
}

// ServeHTTP serves the management API, the embed pages and the control
// API. Injected faults apply to every path except the control API. The
// control API refuses a foreign Host or Origin, and a POST that is not
// application/json (see "Control API" in the package documentation).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	// The Date header follows the emulator's clock, as the platform's
	// follows its own: a moved clock is a skew a client can see.
	w.Header().Set("Date", s.now().UTC().Format(http.TimeFormat))
	rec := &statusRecorder{ResponseWriter: w}
	control := strings.HasPrefix(r.URL.Path, "/_emulator/")
	if !control {
		rec.onStatus = func(status int) {
			s.reqlog.add(RequestLog{Method: r.Method, Path: r.URL.Path, Status: status, Time: s.now()})
		}
	}
	handled := false
	if control {
		if status, msg := s.checkControlRequest(r); status != 0 {
			s.logger.Warn("control API request refused", "method", r.Method, "path", r.URL.Path, "status", status)
			s.writeError(rec, status, msg)
			handled = true
		}
	} else if f, ok := s.faults.match(r.Method, r.URL.Path); ok {
		handled = s.applyFault(rec, r, f)
	}
	if !handled {
		s.route(rec, r)
	}
	status := rec.status
	if status == 0 && !rec.hijacked {
		status = http.StatusOK
	}
	rec.record(status) // a handler that wrote nothing, or a client that went away
	s.logger.Debug("request", "method", r.Method, "path", r.URL.Path, "status", status, "duration", time.Since(start))
}

// route dispatches to the mux, turning its plain-text 404 and 405 answers
// into JSON error bodies.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	p := &probeWriter{header: http.Header{}}
	h.ServeHTTP(p, r)
	switch {
	case p.status == http.StatusMethodNotAllowed:
		w.Header().Set("Allow", p.header.Get("Allow"))
		s.writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on "+r.URL.Path)
	case p.status >= 300 && p.status < 400:
		w.Header().Set("Location", p.header.Get("Location"))
		w.WriteHeader(p.status)
	default:
		s.writeError(w, http.StatusNotFound, "not found: "+r.URL.Path)
	}
}

// probeWriter captures the status and headers of the mux's fallback
// handlers without writing anything.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header { return p.header }
func (p *probeWriter) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return len(b), nil
}
func (p *probeWriter) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}

// statusRecorder remembers the status written through it, and hands it to
// onStatus before any of the response is written: a client that has seen
// the answer finds the request in the request log.
type statusRecorder struct {
	http.ResponseWriter
	status   int
	hijacked bool
	onStatus func(status int) // nil: nothing to record
	recorded bool
}

// record hands status to onStatus, once.
func (r *statusRecorder) record(status int) {
	if r.recorded || r.onStatus == nil {
		return
	}
	r.recorded = true
	r.onStatus(status)
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.record(code)
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (s *Server) routes() {
	m := s.mux
	// Embed sessions and embed tenants.
	m.HandleFunc("POST /api/v1/embed/generate-session", s.handleGenerateSession)
	m.HandleFunc("POST /api/v1/embed/session/token", s.handleExchange)
	m.HandleFunc("POST /api/v1/embed/session/revoke", s.handleRevoke)
	m.HandleFunc("GET /api/v1/embed-tenants/{embedTenantName}/groups", s.handleListTenantGroups)
	m.HandleFunc("DELETE /api/v1/embed-tenants/{embedTenantName}/groups/{id}", s.handleDeleteTenantGroup)

	// Deployments, environments, tokens, versions, branches.
	m.HandleFunc("GET /api/v1/deployments", s.handleListDeployments)
	m.HandleFunc("PUT /api/v1/deployments/{deploymentId}", s.handleUpdateDeployment)
	m.HandleFunc("GET /api/v1/deployments/{deploymentId}/environments", s.handleListEnvironments)
	m.HandleFunc("POST /api/v1/deployments/{deploymentId}/environments/{environmentId}/tokens-for-meta-sync", s.handleMetaToken)
	m.HandleFunc("POST /api/v1/deployments/{deploymentId}/token", s.handleDataToken)
	m.HandleFunc("GET /api/v1/deployments/{deploymentId}/versions", s.handleListVersions)
	m.HandleFunc("PUT /build/api/v1/deployments/{deploymentId}/branches/staging-environment", s.handleStagingEnvironment)

	// Audit and dashboard export.
	m.HandleFunc("GET /api/v1/audit-logs/export", s.handleAuditExport)
	m.HandleFunc("POST /api/v1/deployments/{deploymentId}/dashboard-exports", s.handleSubmitExport)
	m.HandleFunc("GET /api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}", s.handleExportStatus)
	m.HandleFunc("GET /api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download", s.handleExportDownload)

	m.HandleFunc("GET /api/v1/spec", s.handleSpec)

	// Embed pages.
	m.HandleFunc("GET /embed/dashboard/{publicId}", s.handleEmbedPage)
	m.HandleFunc("GET /embed/d/{deploymentId}/dashboard/{publicId}", s.handleEmbedPage)
	m.HandleFunc("GET /embed/d/{deploymentId}/app", s.handleEmbedPage)
	m.HandleFunc("GET /embed/d/{deploymentId}/app/", s.handleEmbedPage)
	m.HandleFunc("GET /embed/assets/", s.handleEmbedPage)
	m.HandleFunc("GET /embed/chat", s.handleEmbedPage)
	m.HandleFunc("GET /embed/api/context", s.handleEmbedContext)
	m.HandleFunc("GET /embed/api/export", s.handleEmbedExport)
	m.HandleFunc("GET /api/v1/embed/dashboard/{publicId}", s.handleEmbedDashboard)

	s.controlRoutes()

	for _, p := range notImplementedPatterns {
		m.HandleFunc(p, s.handleNotImplemented)
	}
}

// notImplementedPatterns are the operations the specification lists by
// method and path only. They answer 501; a pattern without a method is a
// path the specification names without its methods.
var notImplementedPatterns = []string{
	// Deployments.
	"POST /build/api/v1/deployments/{$}",
	"DELETE /api/v1/deployments/{deploymentId}",
	"GET /api/v1/deployments/{deploymentId}/settings",
	"GET /api/v1/deployments/{deploymentId}/build-status",
	"GET /api/v1/deployments/{deploymentId}/logs",
	"GET /api/v1/deployments/{deploymentId}/pods",
	"POST /api/v1/deployments/{deploymentId}/creation-step/advance",
	"POST /api/v1/deployments/{deploymentId}/creation-step/reset",
	"GET /api/v1/deployments/{deploymentId}/env-vars",
	"PUT /api/v1/deployments/{deploymentId}/env-vars",
	"GET /api/v1/regions/{$}",
	// Data model.
	"GET /build/api/v1/deployments/{deploymentId}/data-model/files",
	"PUT /build/api/v1/deployments/{deploymentId}/data-model/files",
	"DELETE /build/api/v1/deployments/{deploymentId}/data-model/files",
	"POST /build/api/v1/deployments/{deploymentId}/data-model/files/rename",
	"POST /build/api/v1/deployments/{deploymentId}/data-model/upload/start",
	"POST /build/api/v1/deployments/{deploymentId}/data-model/upload/file",
	"POST /build/api/v1/deployments/{deploymentId}/data-model/upload/finish",
	"GET /build/api/v1/deployments/{deploymentId}/data-model/file-hashes",
	"GET /build/api/v1/deployments/{deploymentId}/data-model/validate",
	"POST /build/api/v1/deployments/{deploymentId}/dev-mode",
	"DELETE /build/api/v1/deployments/{deploymentId}/dev-mode",
	"GET /build/api/v1/deployments/{deploymentId}/branches",
	"POST /build/api/v1/deployments/{deploymentId}/branches",
	"DELETE /build/api/v1/deployments/{deploymentId}/branches",
	"POST /build/api/v1/deployments/{deploymentId}/commit",
	"POST /build/api/v1/deployments/{deploymentId}/pull",
	"POST /build/api/v1/deployments/{deploymentId}/merge",
	"POST /build/api/v1/deployments/{deploymentId}/merge-to-default",
	"POST /build/api/v1/deployments/{deploymentId}/repo-host/connect",
	// Repo host discovery.
	"GET /api/v1/repo-host/status",
	"GET /api/v1/repo-host/installations",
	"GET /api/v1/repo-host/installations/{installationId}/repositories",
	"GET /api/v1/repo-host/repositories/{owner}/{repo}/branches",
	// Transform sync.
	"GET /api/v1/deployments/{deploymentId}/transform-sync",
	"POST /api/v1/deployments/{deploymentId}/transform-sync",
	"GET /api/v1/deployments/{deploymentId}/transform-sync/{syncJobId}",
	"DELETE /api/v1/deployments/{deploymentId}/transform-sync/{syncJobId}",
	"GET /api/v1/deployments/{deploymentId}/transform-sync/{syncJobId}/result",
	"GET /api/v1/deployments/{deploymentId}/transform-sync/{syncJobId}/logs",
	"GET /api/v1/deployments/{deploymentId}/transform-sync/{syncJobId}/generated-files",
	// Warehouse metric view publication.
	"POST /api/v1/deployments/{deploymentId}/warehouse-metric-view-previews",
	"GET /api/v1/deployments/{deploymentId}/warehouse-metric-view-previews",
	"DELETE /api/v1/deployments/{deploymentId}/warehouse-metric-view-previews",
	"GET /api/v1/deployments/{deploymentId}/warehouse-metric-view-previews/{previewId}",
	"DELETE /api/v1/deployments/{deploymentId}/warehouse-metric-view-previews/{previewId}",
	"GET /api/v1/deployments/{deploymentId}/warehouse-metric-view-previews/{previewId}/result",
	"GET /api/v1/deployments/{deploymentId}/warehouse-metric-view-integrations/{dataSourceName}",
	"PUT /api/v1/deployments/{deploymentId}/warehouse-metric-view-integrations/{dataSourceName}",
	// Workspace.
	"/api/v1/deployments/{deploymentId}/folders",
	"/api/v1/deployments/{deploymentId}/folders/",
	"/api/v1/deployments/{deploymentId}/reports",
	"/api/v1/deployments/{deploymentId}/reports/",
	"/api/v1/deployments/{deploymentId}/workbooks",
	"/api/v1/deployments/{deploymentId}/workbooks/",
	"/api/v1/deployments/{deploymentId}/notifications",
	"/api/v1/deployments/{deploymentId}/notifications/",
	"POST /api/v1/deployments/{deploymentId}/workspace/bulk-delete",
	"POST /api/v1/deployments/{deploymentId}/workspace/bulk-move",
	"GET /api/v1/deployments/{deploymentId}/embed-tenants/{embedTenantName}/workbooks",
	// Users and access.
	"/api/v1/users",
	"/api/v1/users/",
	"/api/v1/user-attributes",
	"/api/v1/user-attributes/",
	"/api/v1/user-attribute-values",
	"/api/v1/user-attribute-values/",
	"GET /api/v1/tenant/settings",
	"PUT /api/v1/tenant/settings",
	"/api/v1/oauth-integrations",
	"/api/v1/oauth-integrations/",
	"/api/v1/user-oauth-tokens",
	"/api/v1/user-oauth-tokens/",
	"/api/v1/oidc-token-configs",
	"/api/v1/oidc-token-configs/",
	"/api/scim/v2/Users",
	"/api/scim/v2/Users/",
	"/api/scim/v2/Groups",
	"/api/scim/v2/Groups/",
	// Embedding and miscellaneous.
	"GET /api/v1/embed-tenants/{$}",
	"GET /api/v1/embed-tenants/{embedTenantName}/users",
	"GET /api/v1/embed-tenants/{embedTenantName}/user-attributes",
	"DELETE /api/v1/embed-tenants/{embedTenantName}/user-attributes/{id}",
	"PATCH /api/v1/embed/dashboard/{publicId}",
	"/api/v1/embed/dashboard/{publicId}/comments",
	"/api/v1/embed/dashboard/{publicId}/comments/",
	"GET /api/v1/app-config",
	"POST /api/v1/usage-analytics/token",
}

// handleNotImplemented answers the operations the specification lists
// without payloads. The credential is still checked, so a client learns
// about a bad key before it learns the operation is not emulated.
func (s *Server) handleNotImplemented(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.authenticate(w, r, authOptions{apiKeyPrefix: true}); !ok {
		return
	}
	s.writeError(w, http.StatusNotImplemented, "not implemented by the emulator")
}

func (s *Server) handleSpec(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.authenticate(w, r, authOptions{}); !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(openAPIDocument())
}

// writeError writes the management API's error body {"error": msg}.
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	s.writeJSON(w, status, map[string]string{"error": msg})
}

// writeJSON writes v as a JSON response.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		s.logger.Error("encoding response", "error", err)
		status = http.StatusInternalServerError
		data = []byte(`{"error":"internal error encoding the response"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(data)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// randomHex returns n random bytes as lower-case hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("emulator: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// shortHash identifies a secret in logs without revealing it.
func shortHash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:4])
}

// pathID parses a positive integer path value.
func pathID(r *http.Request, name string) (int64, bool) {
	v, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return v, err == nil && v > 0
}

// errUnknownUser is returned by addKey for a dangling user reference.
var errUnknownUser = errors.New("emulator: API key references an unknown user")

// sortedInt64s returns the keys of m in ascending order.
func sortedInt64s[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
