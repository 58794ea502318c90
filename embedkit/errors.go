package embedkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sentinel errors. An *APIError matches the one for its status code with
// errors.Is, so callers can write errors.Is(err, embedkit.ErrNotFound)
// without looking at status codes.
var (
	// ErrUnauthorized matches a 401: the API key is missing, malformed,
	// expired or rotated (or, on the session exchange, the session id is
	// unknown or already used).
	ErrUnauthorized = errors.New("embedkit: unauthorized: the platform rejected the credential; the API key may be missing, malformed, expired or rotated")
	// ErrForbidden matches a 403: the credential is valid but not allowed
	// to do this (embedding disabled, non-admin key, deployment outside the
	// key's scope, downloads restricted).
	ErrForbidden = errors.New("embedkit: forbidden")
	// ErrNotFound matches a 404.
	ErrNotFound = errors.New("embedkit: not found")
	// ErrConflict matches a 409.
	ErrConflict = errors.New("embedkit: conflict")
	// ErrUnprocessable matches a 422 (for example the download of a failed
	// dashboard export).
	ErrUnprocessable = errors.New("embedkit: unprocessable")
	// ErrRateLimited matches a 429.
	ErrRateLimited = errors.New("embedkit: rate limited")
	// ErrServer matches every 5xx.
	ErrServer = errors.New("embedkit: platform server error")

	// ErrUserAttributesNotFound matches an *APIError whose message is the
	// platform's "User attributes not found".
	ErrUserAttributesNotFound = errors.New("embedkit: user attributes not found")
	// ErrCannotChangeType matches an *APIError whose message is the
	// platform's "cannot change type" (an attribute definition tried to
	// change the type of an existing attribute).
	ErrCannotChangeType = errors.New("embedkit: cannot change type of an existing user attribute")
	// ErrGroupsNotFound matches an *APIError carrying a *GroupsNotFoundError.
	ErrGroupsNotFound = errors.New("embedkit: groups not found")

	// ErrUnexpectedResponse matches errors about a response the client
	// could not understand: a body that is not JSON, JSON of the wrong
	// shape, or a required field missing.
	ErrUnexpectedResponse = errors.New("embedkit: unexpected response")

	// ErrCircuitOpen is returned without touching the network while the
	// circuit breaker is open (see WithCircuitBreaker).
	ErrCircuitOpen = errors.New("embedkit: circuit open: the platform failed repeatedly; calls fail fast until the cool-down ends")

	// ErrExportExpired is returned by WaitDashboardExport when the job
	// reached its ExpiresAt (or the platform no longer knows it) before it
	// completed. Submit the export again.
	ErrExportExpired = errors.New("embedkit: dashboard export job expired")
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// maxQuote bounds how much of an unexpected body is quoted in an error.
const maxQuote = 256

// APIError is a response of the platform with a non-2xx status code. The
// platform's error body is {"error": "<message>"}.
//
// Its Error method names the method, the path (never the query string)
// and the status; it never contains the API key, a token or a session id.
type APIError struct {
	// StatusCode is the HTTP status code of the response.
	StatusCode int
	// Message is the platform's error message, if the body had one.
	Message string
	// Body is a bounded, printable prefix of the body when it was not the
	// platform's JSON error shape (for example an HTML page of a proxy).
	Body string
	// RequestID is the X-Request-Id response header, if any.
	RequestID string
	// Method and Path identify the request; Path has no query string.
	Method, Path string
	// RetryAfter is the delay the platform asked for with Retry-After on a
	// 429 or 503, zero when absent.
	RetryAfter time.Duration

	// detail is a typed reading of Message (for example a
	// *GroupsNotFoundError), returned by Unwrap.
	detail error
	// credentialed says the request carried the API key, so a 401 is about
	// the key.
	credentialed bool
}

// Error describes the failed call without any secret.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("embedkit: ")
	b.WriteString(e.Method)
	b.WriteByte(' ')
	b.WriteString(e.Path)
	b.WriteString(": ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	switch {
	case e.Message != "":
		b.WriteString(": ")
		b.WriteString(e.Message)
	case e.Body != "":
		b.WriteString(": unexpected body ")
		b.WriteString(strconv.Quote(e.Body))
	}
	if e.StatusCode == http.StatusUnauthorized && e.credentialed {
		b.WriteString(" (check the API key: it may be missing, malformed, expired or rotated)")
	}
	if e.RetryAfter > 0 {
		b.WriteString(" (retry after ")
		b.WriteString(e.RetryAfter.String())
		b.WriteByte(')')
	}
	if e.RequestID != "" {
		b.WriteString(" [request id ")
		b.WriteString(e.RequestID)
		b.WriteByte(']')
	}
	return b.String()
}

// Is matches the sentinel of the status code (ErrNotFound for a 404, ...)
// and the sentinels of the platform's named messages.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrUnprocessable:
		return e.StatusCode == http.StatusUnprocessableEntity
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500 && e.StatusCode <= 599
	case ErrUserAttributesNotFound:
		return containsFold(e.Message, "user attributes not found")
	case ErrCannotChangeType:
		return containsFold(e.Message, "cannot change type")
	}
	return false
}

// Unwrap returns the typed reading of the message, such as a
// *GroupsNotFoundError, or nil.
func (e *APIError) Unwrap() error { return e.detail }

// GroupsNotFoundError is the platform's "Groups with names <missing> not
// found": some global groups named in a session request do not exist.
// It is reached from the *APIError with errors.As.
type GroupsNotFoundError struct {
	// Names are the missing group names, as the platform listed them.
	Names []string
}

// Error lists the missing groups.
func (e *GroupsNotFoundError) Error() string {
	return "embedkit: groups not found: " + strings.Join(e.Names, ", ")
}

// Is reports whether target is ErrGroupsNotFound.
func (e *GroupsNotFoundError) Is(target error) bool { return target == ErrGroupsNotFound }

// ExportFailedError is returned by WaitDashboardExport when the render
// failed. The job is terminal: submit a new export.
type ExportFailedError struct {
	// JobID is the failed job.
	JobID string
	// Reason is the platform's explanation (the status's error field).
	Reason string
}

// Error gives the platform's reason.
func (e *ExportFailedError) Error() string {
	if e.Reason == "" {
		return "embedkit: dashboard export failed"
	}
	return "embedkit: dashboard export failed: " + e.Reason
}

var groupsNotFoundRE = regexp.MustCompile(`(?is)groups? with names?\s+(.*?)\s+(?:were |was )?not found`)

// parseGroupsNotFound reads the missing names out of the platform's
// message. It accepts a plain comma-separated list, quoted names, and a
// bracketed or JSON array.
func parseGroupsNotFound(msg string) (*GroupsNotFoundError, bool) {
	m := groupsNotFoundRE.FindStringSubmatch(msg)
	if m == nil {
		return nil, false
	}
	list := strings.TrimSpace(m[1])
	var names []string
	if strings.HasPrefix(list, "[") {
		var arr []string
		if json.Unmarshal([]byte(list), &arr) == nil {
			names = arr
		}
		list = strings.TrimSuffix(strings.TrimPrefix(list, "["), "]")
	}
	if names == nil {
		list = strings.TrimSuffix(strings.TrimPrefix(list, "("), ")")
		for part := range strings.SplitSeq(list, ",") {
			n := strings.Trim(strings.TrimSpace(part), "\"'`")
			n = strings.TrimSpace(n)
			if n != "" {
				names = append(names, n)
			}
		}
	}
	return &GroupsNotFoundError{Names: names}, true
}

// containsFold reports whether s contains substr, ignoring case.
func containsFold(s, substr string) bool {
	return strings.Contains(strings.ToLower(s), substr)
}

// quoteBody returns a bounded, valid UTF-8 prefix of b with control
// characters escaped, suitable for an error message.
func quoteBody(b []byte) string {
	truncated := false
	if len(b) > maxQuote {
		b = b[:maxQuote]
		truncated = true
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			if len(b) < utf8.UTFMax && truncated {
				break // a rune cut by the bound
			}
			sb.WriteString(`\ufffd`)
			b = b[1:]
			continue
		}
		switch {
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
		b = b[size:]
	}
	if truncated {
		sb.WriteString("...")
	}
	return sb.String()
}

// errorMessage reads the platform's message from an error body:
// {"error": "..."}, and for robustness {"message": "..."} and
// {"error": {"message": "..."}}.
func errorMessage(body []byte) (string, bool) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", false
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return s, true
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			return o.Message, true
		}
	}
	if v.Message != "" {
		return v.Message, true
	}
	return "", false
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP
// date (relative to now). It returns zero when absent or unreadable.
func parseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(365*24*time.Hour/time.Second) {
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
