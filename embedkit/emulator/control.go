package emulator

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/embedkit/embedkit/internal/loopbackhost"
)

// The control API drives the emulator from tests. It needs no credential:
// never expose an emulator beyond loopback. Because a browser page can
// reach a loopback server, every control request also passes
// checkControlRequest first (DNS rebinding, cross-origin writes).
//
//	POST   /_emulator/reset     body: a fixture (empty: the Server's own) → 204
//	POST   /_emulator/clock     {"advance": "5m1s"} → 200 {"now": "<RFC 3339>"}
//	GET    /_emulator/clock     → 200 {"now": "<RFC 3339>"}
//	POST   /_emulator/faults    {"faults": [{"method", "path", "status", "times",
//	                              "delay", "retryAfter", "reset", "body"}]} → 204
//	DELETE /_emulator/faults    → 204
//	GET    /_emulator/sessions  → 200 {"sessions": [SessionInfo...]}
//	GET    /_emulator/requests  → 200 {"requests": [RequestLog...]}

func (s *Server) controlRoutes() {
	m := s.mux
	m.HandleFunc("POST /_emulator/reset", s.handleControlReset)
	m.HandleFunc("POST /_emulator/clock", s.handleControlClock)
	m.HandleFunc("GET /_emulator/clock", s.handleControlClock)
	m.HandleFunc("POST /_emulator/faults", s.handleControlFaults)
	m.HandleFunc("DELETE /_emulator/faults", s.handleControlClearFaults)
	m.HandleFunc("GET /_emulator/sessions", s.handleControlSessions)
	m.HandleFunc("GET /_emulator/requests", s.handleControlRequests)
}

// checkControlRequest decides whether r may use the control API. It
// answers 0 when it may, or the status and message of the refusal:
//
//   - 403 when the Host header names neither a loopback address,
//     "localhost", the IP address the request's connection was accepted
//     on, nor a host given with WithControlHosts or Config.ControlHosts.
//     A page that rebinds its own DNS name to 127.0.0.1 is same-origin
//     with the emulator in the browser's eyes, but its requests still
//     carry its own name in Host. Ports are not compared: the name alone
//     is what a rebinding page cannot fake.
//   - 403 when an Origin header is present and is not the emulator's own
//     origin (http or https and the request's Host). Browsers send Origin
//     on every cross-origin request and on every POST; tests and scripts
//     send none.
//   - 415 for a POST without "Content-Type: application/json", even with
//     an empty body: a cross-origin form or a no-cors fetch cannot send
//     that type without a CORS preflight, which the emulator never
//     grants. DELETE needs no type: no page can send it cross-origin
//     without a preflight either.
func (s *Server) checkControlRequest(r *http.Request) (status int, msg string) {
	if !s.controlHostAllowed(r) {
		return http.StatusForbidden, "control API: Host " + quote(r.Host) + " refused: the control API answers only to a loopback address, " +
			"localhost, the address it was reached on, and the hosts named with WithControlHosts (a defence against DNS rebinding)"
	}
	for _, o := range r.Header.Values("Origin") {
		if !strings.EqualFold(o, "http://"+r.Host) && !strings.EqualFold(o, "https://"+r.Host) {
			return http.StatusForbidden, "control API: Origin " + quote(o) + " refused: only the emulator's own origin, or no Origin " +
				"(a test or script rather than a web page), may use the control API"
		}
	}
	if r.Method == http.MethodPost {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return http.StatusUnsupportedMediaType, "control API: a POST needs \"Content-Type: application/json\", even with an empty body"
		}
	}
	return 0, ""
}

// controlHostAllowed reports whether the Host of r passes the control
// API's rule (see checkControlRequest).
func (s *Server) controlHostAllowed(r *http.Request) bool {
	return loopbackhost.Allowed(r, s.controlHosts.has)
}

// quote quotes s for an error message, bounded to 200 bytes.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strconv.Quote(s)
}

// hostSet is the set of extra host names the control API answers to.
type hostSet struct {
	mu    sync.RWMutex
	names map[string]bool
}

func (h *hostSet) add(hosts ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, host := range hosts {
		name := loopbackhost.Name(host)
		if name == "" {
			continue
		}
		if h.names == nil {
			h.names = map[string]bool{}
		}
		h.names[name] = true
	}
}

func (h *hostSet) has(name string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.names[name]
}

func (s *Server) handleControlReset(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r, maxFixtureBytes)
	if !ok {
		return
	}
	var f *Fixture
	if len(trimSpace(data)) > 0 {
		var err error
		if f, err = parseFixture(data); err != nil {
			s.writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	}
	if err := s.Reset(f); err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

type clockBody struct {
	Advance *jsonDuration `json:"advance"`
}

func (s *Server) handleControlClock(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	if r.Method == http.MethodPost {
		var b clockBody
		if !s.decodeBody(w, r, &b) {
			return
		}
		if b.Advance == nil {
			s.writeError(w, http.StatusBadRequest, "advance: is required (a duration such as \"5m1s\")")
			return
		}
		if *b.Advance < 0 {
			s.writeError(w, http.StatusBadRequest, "advance: must not be negative")
			return
		}
		now = s.Advance(time.Duration(*b.Advance))
	}
	s.writeJSON(w, http.StatusOK, map[string]string{"now": now.UTC().Format(time.RFC3339Nano)})
}

type faultBody struct {
	Method     string       `json:"method"`
	Path       string       `json:"path"`
	Status     int          `json:"status"`
	Times      int          `json:"times"`
	Delay      jsonDuration `json:"delay"`
	RetryAfter string       `json:"retryAfter"`
	Reset      bool         `json:"reset"`
	Body       string       `json:"body"`
}

type faultsBody struct {
	Faults []faultBody `json:"faults"`
}

func (s *Server) handleControlFaults(w http.ResponseWriter, r *http.Request) {
	var b faultsBody
	if !s.decodeBody(w, r, &b) {
		return
	}
	if b.Faults == nil {
		s.writeError(w, http.StatusBadRequest, "faults: is required")
		return
	}
	for i, f := range b.Faults {
		p := indexPath("faults", i)
		switch {
		case f.Status != 0 && (f.Status < 100 || f.Status > 599):
			s.writeError(w, http.StatusBadRequest, p+".status: must be an HTTP status (100 to 599)")
			return
		case f.Times < 0:
			s.writeError(w, http.StatusBadRequest, p+".times: must not be negative")
			return
		case f.Delay < 0:
			s.writeError(w, http.StatusBadRequest, p+".delay: must not be negative")
			return
		case f.Status == 0 && !f.Reset && f.Delay == 0:
			s.writeError(w, http.StatusBadRequest, p+": give status, reset or delay")
			return
		}
	}
	for _, f := range b.Faults {
		s.InjectFault(Fault{
			Method: f.Method, Path: f.Path, Status: f.Status, Times: f.Times,
			Delay: time.Duration(f.Delay), RetryAfter: f.RetryAfter, Reset: f.Reset, Body: f.Body,
		})
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleControlClearFaults(w http.ResponseWriter, _ *http.Request) {
	s.ClearFaults()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleControlSessions(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, map[string]any{"sessions": s.Sessions()})
}

func (s *Server) handleControlRequests(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, map[string]any{"requests": s.Requests()})
}

// RequestLog is one answered request (control API requests excluded). It
// records the path only, never the query string, headers or body.
type RequestLog struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Status is the status answered; 0 when a fault dropped the connection
	// and 499 when the client went away during an injected delay.
	Status int       `json:"status"`
	Time   time.Time `json:"time"`
}

// requestLogSize is how many requests the log keeps (the newest).
const requestLogSize = 1000

type requestRing struct {
	mu   sync.Mutex
	buf  []RequestLog
	next int
	full bool
}

func (rr *requestRing) init(n int) { rr.buf = make([]RequestLog, n) }

func (rr *requestRing) add(e RequestLog) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.buf[rr.next] = e
	rr.next = (rr.next + 1) % len(rr.buf)
	if rr.next == 0 {
		rr.full = true
	}
}

func (rr *requestRing) clear() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.next, rr.full = 0, false
}

func (rr *requestRing) list() []RequestLog {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if !rr.full {
		return append([]RequestLog{}, rr.buf[:rr.next]...)
	}
	out := make([]RequestLog, 0, len(rr.buf))
	out = append(out, rr.buf[rr.next:]...)
	return append(out, rr.buf[:rr.next]...)
}

// Requests returns the most recent requests (up to 1000), oldest first.
func (s *Server) Requests() []RequestLog { return s.reqlog.list() }
