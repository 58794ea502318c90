package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// Errors the handlers report through FailureReason. Each is wrapped with
// more detail; test with errors.Is.
var (
	// ErrUnknownTarget: the path or body names no registered target (404).
	ErrUnknownTarget = errors.New("middleware: unknown embed target")
	// ErrCrossSite: the request came from another site (403).
	ErrCrossSite = errors.New("middleware: cross-site request refused")
	// ErrMethod: the HTTP method is not accepted here (405).
	ErrMethod = errors.New("middleware: method not allowed")
	// ErrBadRequest: the JSON body is malformed or too large (400).
	ErrBadRequest = errors.New("middleware: malformed request")
	// ErrIdentity: the viewer is logged in but the Identity could not map
	// their data, for example a claim of the wrong type (500).
	ErrIdentity = errors.New("middleware: the viewer's identity could not be read")
	// ErrStore: a store the kit relies on did not answer (503 with
	// Retry-After): the SessionStore, so a minted session could not be
	// tracked for logout and was revoked at once, or the Identity's list
	// of ended logins, so whether the login still holds could not be
	// checked (an *UnverifiedViewerError) and nothing was minted. Either
	// way the viewer can only wait and try again.
	ErrStore = errors.New("middleware: session store unavailable")
	// ErrNoSubjectIndex: RevokeSubject needs a store that implements
	// SubjectIndex.
	ErrNoSubjectIndex = errors.New("middleware: the SessionStore cannot find sessions by subject (it does not implement SubjectIndex)")
	// ErrRequestScopedStore: RevokeProviderSession cannot reach a RequestScoped store (a cookie), whose ids live in
	// the browser.
	ErrRequestScopedStore = errors.New("middleware: the SessionStore keeps its records in the request (RequestScoped), so they cannot be reached outside one")
)

// defaultRetryAfter is the Retry-After of an outage without a platform
// hint.
const defaultRetryAfter = 30 * time.Second

// failureKey is the context key of FailureReason.
type failureKey struct{}

// FailureReason returns the error that made a handler call the
// ErrorHandler, or nil.
func FailureReason(r *http.Request) error {
	err, _ := r.Context().Value(failureKey{}).(error)
	return err
}

// ErrorStatus returns the HTTP status a handler answers for err, and the
// Retry-After to send with a 503 (zero otherwise):
//
//   - ErrNoViewer 401; ErrCrossSite, ErrDenied and a platform 403 403;
//     ErrUnknownTarget 404; ErrMethod 405; ErrBadRequest 400;
//   - ErrMintLimited 429 with Retry-After (the wait for the viewer's
//     next mint, at least a second);
//   - ErrIdentity and ErrMisconfigured 500;
//   - a platform outage (5xx, rate limit, open circuit, timeout, network
//     failure), ErrStore and an *UnverifiedViewerError (a store that does
//     not answer, the list of ended logins included) 503 with
//     Retry-After;
//   - any other platform failure, a rejected API key included, 502.
func ErrorStatus(err error) (status int, retryAfter time.Duration) {
	switch {
	case err == nil:
		return http.StatusOK, 0
	case errors.Is(err, ErrNoViewer):
		return http.StatusUnauthorized, 0
	case errors.Is(err, ErrCrossSite), errors.Is(err, ErrDenied):
		return http.StatusForbidden, 0
	case errors.Is(err, ErrUnknownTarget):
		return http.StatusNotFound, 0
	case errors.Is(err, ErrMethod):
		return http.StatusMethodNotAllowed, 0
	case errors.Is(err, ErrBadRequest):
		return http.StatusBadRequest, 0
	case errors.As(err, new(*UnverifiedViewerError)):
		// The Identity could not check the login: its store is down.
		return http.StatusServiceUnavailable, defaultRetryAfter
	case errors.Is(err, ErrIdentity), errors.Is(err, ErrMisconfigured), errors.Is(err, embedkit.ErrInvalidRequest):
		return http.StatusInternalServerError, 0
	case errors.Is(err, ErrStore):
		return http.StatusServiceUnavailable, defaultRetryAfter
	case errors.Is(err, ErrMintLimited):
		ra := time.Second
		if le, ok := errors.AsType[*mintLimitedError](err); ok {
			ra = max(ra, le.wait)
		}
		return http.StatusTooManyRequests, ra
	case errors.Is(err, embedkit.ErrForbidden):
		return http.StatusForbidden, 0
	case platformUnavailable(err):
		ra := defaultRetryAfter
		var apiErr *embedkit.APIError
		if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
			ra = apiErr.RetryAfter
		}
		return http.StatusServiceUnavailable, ra
	default:
		return http.StatusBadGateway, 0
	}
}

// platformUnavailable reports whether err says the platform is down or
// limiting for now: a 5xx, a rate limit, an open circuit, a timeout or a
// network failure. A later try may succeed.
func platformUnavailable(err error) bool {
	var netErr net.Error
	return errors.Is(err, embedkit.ErrServer) || errors.Is(err, embedkit.ErrRateLimited) ||
		errors.Is(err, embedkit.ErrCircuitOpen) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &netErr)
}

// mintOutcome classifies the error a mint failed with, by its kind (not
// by the HTTP status a handler answers for it).
func mintOutcome(err error) Outcome {
	switch {
	case errors.Is(err, ErrDenied), errors.Is(err, embedkit.ErrForbidden):
		return OutcomeDenied
	case errors.Is(err, ErrMintLimited):
		return OutcomeLimited
	case errors.Is(err, ErrMisconfigured), errors.Is(err, embedkit.ErrInvalidRequest):
		return OutcomeInvalid
	case errors.Is(err, ErrStore), platformUnavailable(err):
		return OutcomeUnavailable
	}
	return OutcomeError
}

// mintError is the error a mint failed with, and the outcome the kit
// reported for it.
type mintError struct {
	outcome Outcome
	err     error
}

func (e *mintError) Error() string { return e.err.Error() }
func (e *mintError) Unwrap() error { return e.err }

// OutcomeOf returns the outcome of the mint that failed with err (an
// error of FrameURL, or the FailureReason of a frame or session
// endpoint), as the kit reported it to Metrics and the Tracer and logged
// it: an ErrorHandler can label its own records alike. It is "" for an
// error that did not come from a mint (no viewer, a bad request).
func OutcomeOf(err error) Outcome {
	if me, ok := errors.AsType[*mintError](err); ok {
		return me.outcome
	}
	return ""
}

// publicMessage is the text shown to the viewer for a status. It never
// includes error details.
func publicMessage(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "Please sign in to see this content."
	case http.StatusForbidden:
		return "You do not have access to this content."
	case http.StatusNotFound:
		return "This content does not exist."
	case http.StatusMethodNotAllowed:
		return "Method not allowed."
	case http.StatusBadRequest:
		return "The request was malformed."
	case http.StatusTooManyRequests:
		return "Too many analytics views were opened in a short time. Please wait a moment and try again."
	case http.StatusServiceUnavailable:
		return "Analytics are temporarily unavailable. Please try again in a moment."
	case http.StatusBadGateway:
		return "Analytics could not be loaded. Please try again later."
	default:
		return "Analytics could not be loaded because of a problem on our side. Please contact support."
	}
}

// publicMessageFor is publicMessage, made more precise for errors the
// viewer can act on.
func publicMessageFor(err error, status int) string {
	if errors.Is(err, errCrossSiteNavigation) {
		return "This page was opened from another site, so its analytics were not loaded. Open it from within the app to see them."
	}
	if errors.Is(err, ErrIdentity) {
		return "Your account information could not be read, so analytics cannot be shown. Please sign out and in again, or contact support."
	}
	return publicMessage(status)
}

// fail hands err to the ErrorHandler (or the default page), with
// FailureReason set. asJSON selects the default JSON answer.
func (k *Kit) fail(w http.ResponseWriter, r *http.Request, err error, asJSON bool) {
	r = r.WithContext(context.WithValue(r.Context(), failureKey{}, err))
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if errors.Is(err, ErrMethod) && h.Get("Allow") == "" {
		h.Set("Allow", "GET, HEAD")
	}
	status, retryAfter := ErrorStatus(err)
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	}
	if k.cfg.ErrorHandler != nil {
		k.cfg.ErrorHandler.ServeHTTP(w, r)
		return
	}
	writeError(w, r, status, publicMessageFor(err, status), asJSON)
}

// writeError writes the default error answer: status and msg, as plain
// text or as JSON {"error": msg}.
func writeError(w http.ResponseWriter, r *http.Request, status int, msg string, asJSON bool) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if asJSON {
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
		}
		return
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(msg + "\n"))
	}
}

// DefaultErrorHandler is the ErrorHandler used when Config.ErrorHandler is
// nil: a plain-text page with the status of ErrorStatus(FailureReason(r))
// and a fixed message per status. Custom handlers can fall back to it.
var DefaultErrorHandler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	err := FailureReason(r)
	status, _ := ErrorStatus(err)
	writeError(w, r, status, publicMessageFor(err, status), false)
})
