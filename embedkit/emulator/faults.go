package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Fault is an injected failure: the next Times requests matching Method
// and Path get it instead of (or, with only Delay, before) their normal
// answer. Control API paths (/_emulator/...) are never faulted.
type Fault struct {
	// Method matches the request method; empty matches any.
	Method string
	// Path matches the request path exactly; empty matches any path, and a
	// path ending in "*" matches that prefix.
	Path string
	// Status, when non-zero, is the status answered.
	Status int
	// Times is how many requests get the fault; 0 means until cleared.
	Times int
	// Delay is slept before answering (or before normal handling when
	// Status is 0 and Reset is false); it ends early when the request's
	// context is done.
	Delay time.Duration
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Reset drops the connection without an answer. Over HTTP/2 (the
	// emulator's TLS mode, to a client that offers it) it resets the
	// request's stream instead: the connection carries other requests.
	Reset bool
	// Body is the raw response body; empty means {"error": "injected fault"}.
	Body string
}

type faultEntry struct {
	Fault
	left int // remaining uses; -1 is unlimited
}

type faultSet struct {
	mu     sync.Mutex
	faults []*faultEntry
}

func (fs *faultSet) add(f Fault) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	left := f.Times
	if left <= 0 {
		left = -1
	}
	fs.faults = append(fs.faults, &faultEntry{Fault: f, left: left})
}

func (fs *faultSet) clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.faults = nil
}

// match consumes one use of the first fault matching the request.
func (fs *faultSet) match(method, path string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.faults {
		if f.Method != "" && !strings.EqualFold(f.Method, method) {
			continue
		}
		switch {
		case f.Path == "":
		case strings.HasSuffix(f.Path, "*"):
			if !strings.HasPrefix(path, strings.TrimSuffix(f.Path, "*")) {
				continue
			}
		case f.Path != path:
			continue
		}
		if f.left > 0 {
			f.left--
			if f.left == 0 {
				fs.faults = append(fs.faults[:i:i], fs.faults[i+1:]...)
			}
		}
		return f.Fault, true
	}
	return Fault{}, false
}

// InjectFault adds a fault; faults are matched in the order added.
func (s *Server) InjectFault(f Fault) { s.faults.add(f) }

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() { s.faults.clear() }

// applyFault performs f and reports whether the request was answered.
func (s *Server) applyFault(w *statusRecorder, r *http.Request, f Fault) bool {
	if f.Delay > 0 {
		bufferBody(r)
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			w.status = 499 // client went away; logged only
			return true
		}
	}
	if f.Reset {
		s.logger.Debug("fault: dropping connection", "path", r.URL.Path)
		w.hijacked = true
		// Recorded before the connection drops: the client may send its
		// next request, and read the request log, the moment it notices.
		w.record(0)
		if hj, ok := w.ResponseWriter.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				raw := conn
				if nc, ok := conn.(interface{ NetConn() net.Conn }); ok {
					raw = nc.NetConn() // TLS: reset the TCP connection under it
				}
				if tc, ok := raw.(*net.TCPConn); ok {
					_ = tc.SetLinger(0) // send RST, like a crashed peer
				}
				_ = conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	}
	if f.Status == 0 {
		return false
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body == "" {
		s.writeError(w, f.Status, "injected fault")
		return true
	}
	ct := "text/plain; charset=utf-8"
	if json.Valid([]byte(f.Body)) {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
	return true
}

// bufferBody reads up to maxBodyBytes+1 of the request body into memory
// and puts it back in front of the rest. net/http notices that a client
// went away (and cancels the request's context) only once the body has
// been read to its end, so without this a delay on a POST would sleep its
// full length after the client gave up.
func bufferBody(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	rest := io.Reader(r.Body)
	if err != nil {
		rest = errReader{err} // the handler meets the error where it would have
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), rest), r.Body}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
