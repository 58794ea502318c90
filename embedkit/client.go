package embedkit

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Version is the version of this package, sent in the User-Agent header.
const Version = "0.1.0"

// defaultUserAgent is sent on every request.
const defaultUserAgent = "embedkit-go/" + Version

// maxBody bounds a buffered (non-streamed) response body.
const maxBody = 32 << 20

// drainLimit bounds how much of an unwanted body is read so the connection
// can be reused.
const drainLimit = 64 << 10

// Client is a client of the platform's management API. It is safe for
// concurrent use; create one per API key and share it.
//
// Every method takes a context first and checks its request before
// sending it. Failed calls return an *APIError (non-2xx answers), a
// *ValidationError (requests that break a rule of the specification), or a
// transport error wrapped with the method and path.
type Client struct {
	base        *url.URL
	baseStr     string
	apiKey      string
	httpClient  *http.Client
	streamHTTP  *http.Client
	userAgent   string
	retry       RetryPolicy
	logger      *slog.Logger
	embedScheme string
	// headers[embed][body] are the headers a request starts from: the
	// credential (with the embed endpoints' scheme when embed), Accept,
	// User-Agent, and Content-Type when it has a body.
	headers [2][2]http.Header
	// fixedURLs are the full URLs of the paths every page view calls
	// (mint, exchange, revoke), joined once.
	fixedURLs  map[string]string
	breakerSet *BreakerSettings
	breaker    *breaker
	now        func() time.Time
	pollMin    time.Duration
	pollMax    time.Duration
	// sleep waits between retries and polls; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// New returns a Client of the platform at baseURL (the tenant host, for
// example "https://acme.example.com") authenticating with apiKey.
//
// baseURL must be https; plain http is accepted only for loopback hosts
// (localhost, 127.0.0.0/8, ::1) so a local emulator works. apiKey must not
// be empty. Neither is ever printed.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	base, err := ParseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(apiKey) == "" {
		return nil, errors.New("embedkit: empty API key")
	}
	if strings.ContainsAny(apiKey, "\r\n\x00 ") {
		return nil, errors.New("embedkit: API key contains spaces or control characters")
	}
	c := &Client{
		base:        base,
		baseStr:     strings.TrimSuffix(base.String(), "/"),
		apiKey:      apiKey,
		userAgent:   defaultUserAgent,
		retry:       DefaultRetryPolicy(),
		logger:      slog.New(slog.DiscardHandler),
		embedScheme: "Bearer",
		now:         time.Now,
		pollMin:     500 * time.Millisecond,
		pollMax:     5 * time.Second,
		sleep:       sleepCtx,
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(c); err != nil {
			return nil, err
		}
	}
	own := c.httpClient == nil
	if own {
		c.httpClient = defaultHTTPClient()
	}
	stream := *c.httpClient
	if own {
		stream.Timeout = 0 // a stream is bounded by its context, not 30s
	}
	c.streamHTTP = &stream
	c.fixedURLs = map[string]string{}
	for _, p := range []string{"/api/v1/embed/generate-session", "/api/v1/embed/session/token", "/api/v1/embed/session/revoke"} {
		c.fixedURLs[p] = c.baseStr + p
	}
	for embed, scheme := range []string{"Bearer", c.embedScheme} {
		for body := range 2 {
			h := http.Header{
				"Authorization": {scheme + " " + c.apiKey},
				"Accept":        {"application/json"},
				"User-Agent":    {c.userAgent},
			}
			if body == 1 {
				h["Content-Type"] = []string{"application/json"}
			}
			c.headers[embed][body] = h
		}
	}
	if c.breakerSet != nil {
		s := *c.breakerSet
		user := s.OnStateChange
		logger := c.logger
		s.OnStateChange = func(from, to BreakerState) {
			logger.LogAttrs(context.Background(), slog.LevelWarn, "embedkit circuit breaker",
				slog.String("from", from.String()), slog.String("to", to.String()))
			if user != nil {
				user(from, to)
			}
		}
		c.breaker = newBreaker(s, c.now)
	}
	return c, nil
}

// BreakerState returns the state of the circuit breaker; BreakerClosed
// when the breaker is off.
func (c *Client) BreakerState() BreakerState {
	if c.breaker == nil {
		return BreakerClosed
	}
	return c.breaker.State()
}

// defaultClientTimeout is the overall timeout of the default http.Client.
const defaultClientTimeout = 30 * time.Second

// defaultHTTPClient has bounded timeouts and a pool sized for concurrent
// use.
func defaultHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   100,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{Transport: tr, Timeout: defaultClientTimeout, CheckRedirect: noSecretRedirect}
}

// errRedirect marks a redirect the Client refused; it is not retried.
var errRedirect = errors.New("embedkit: redirect refused")

// noSecretRedirect refuses redirects to another origin (net/http would
// drop the Authorization header anyway) and caps the chain.
func noSecretRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return fmt.Errorf("%w: more than 5 redirects", errRedirect)
	}
	if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
		return fmt.Errorf("%w: redirect to another origin", errRedirect)
	}
	return nil
}

// NewRequest builds a request for any operation of the platform, including
// those this package has no method for (users, SCIM, workspace, ...).
// path is relative to the base URL and starts with "/", optionally with a
// query string; body, if not nil, is sent as JSON. The request carries the
// Client's authentication, Accept and User-Agent headers. Send it with Do.
func (c *Client) NewRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	if ctx == nil {
		return nil, errors.New("embedkit: nil context")
	}
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") || strings.HasPrefix(path, "/\\") {
		return nil, fmt.Errorf("embedkit: request path must start with a single \"/\"")
	}
	var rdr io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			p, _, _ := strings.Cut(path, "?")
			return nil, fmt.Errorf("embedkit: %s %s: encoding request body: %w", method, c.base.Path+p, err)
		}
		rdr = bytes.NewReader(buf)
	}
	// The URL is parsed once, by the request itself.
	full, ok := c.fixedURLs[path]
	if !ok {
		full = c.baseStr + path
	}
	req, err := http.NewRequestWithContext(ctx, method, full, rdr)
	if err != nil {
		if _, perr := url.Parse(c.baseStr + path); perr != nil {
			return nil, errors.New("embedkit: request path does not parse")
		}
		return nil, fmt.Errorf("embedkit: building %s request: %w", method, err)
	}
	u := req.URL
	if u.Host != c.base.Host || u.Scheme != c.base.Scheme {
		return nil, errors.New("embedkit: request path does not parse")
	}
	embed, hasBody := 0, 0
	if strings.HasPrefix(u.Path, c.base.Path) && strings.HasPrefix(u.Path[len(c.base.Path):], "/api/v1/embed/") {
		embed = 1
	}
	if body != nil {
		hasBody = 1
	}
	req.Header = c.headers[embed][hasBody].Clone()
	return req, nil
}

// call describes one operation to the transport.
type call struct {
	// template is the path with ids replaced by placeholders, for logs.
	template string
	// noAuth sends no credential (the session-token exchange, where the
	// session id is the credential).
	noAuth bool
	// bearer, when set, is sent as "Authorization: Bearer <bearer>" in
	// place of the API key (calls the embedded page makes with its embed
	// token). It is kept out of errors like secrets.
	bearer string
	// idempotent marks a POST that is safe to repeat (session revoke).
	idempotent bool
	// stream hands the live body of a 2xx to the caller.
	stream bool
	// secrets are request values to keep out of errors (besides the key).
	secrets []string
	// secretResponse withholds the body from decoding errors, because a
	// success body of this operation carries a secret.
	secretResponse bool
}

// fetch is the whole life of a typed call: it builds the request, sends it
// with the Client's retries and error mapping (send), and decodes a 2xx
// body with decode. A body decode cannot read is an ErrUnexpectedResponse
// naming the method and path, with the body withheld when
// cl.secretResponse says it may carry a secret.
func fetch[T any](ctx context.Context, c *Client, method, path string, body any, cl call, decode func([]byte) (T, error)) (T, error) {
	var zero T
	req, err := c.NewRequest(ctx, method, path, body)
	if err != nil {
		return zero, err
	}
	switch {
	case cl.bearer != "":
		req.Header.Set("Authorization", "Bearer "+cl.bearer)
		cl.secrets = append(cl.secrets, cl.bearer)
	case cl.noAuth:
		req.Header.Del("Authorization")
	}
	_, raw, err := c.send(req, cl)
	if err != nil {
		return zero, err
	}
	v, err := decode(raw)
	if err != nil {
		return zero, c.unexpected(method, req.URL.Path, raw, cl.secretResponse, err)
	}
	return v, nil
}

// Do sends req, built by NewRequest, with the Client's retries (by method
// idempotency: GET, HEAD, PUT, DELETE are retried on 429, every 5xx but 501 and
// connection errors; POST only when the connection could not be opened and
// on 429), error decoding and circuit breaker.
//
// A 2xx body is decoded into v: JSON unless v is an io.Writer, which gets
// the raw bytes; nil v discards it. A non-2xx answer returns an *APIError.
// The returned response's Body has been read and closed; it is replaced by
// an in-memory copy (of at most 64 KiB for an error answer).
func (c *Client) Do(req *http.Request, v any) (*http.Response, error) {
	cl := call{template: sanitizePath(req.URL.Path)}
	return c.do(req, cl, v)
}

// do sends, buffers and decodes.
func (c *Client) do(req *http.Request, cl call, v any) (*http.Response, error) {
	resp, body, err := c.send(req, cl)
	if err != nil {
		return resp, err
	}
	if v == nil {
		return resp, nil
	}
	if w, ok := v.(io.Writer); ok {
		if _, err := w.Write(body); err != nil {
			return resp, fmt.Errorf("embedkit: %s %s: writing response: %w", req.Method, req.URL.Path, err)
		}
		return resp, nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return resp, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp, c.unexpected(req.Method, req.URL.Path, body, cl.secretResponse, err)
	}
	return resp, nil
}

// unexpected reports a response body the client cannot read, quoting a
// bounded prefix unless the body may carry a secret.
func (c *Client) unexpected(method, path string, body []byte, secret bool, reason error) error {
	why := "malformed response"
	if reason != nil {
		why = scrub(reason.Error(), c.apiKey)
	}
	if secret {
		return fmt.Errorf("embedkit: %s %s: %w: %s (body withheld: it may carry a secret)", method, path, ErrUnexpectedResponse, why)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return fmt.Errorf("embedkit: %s %s: %w: %s: empty body", method, path, ErrUnexpectedResponse, why)
	}
	return fmt.Errorf("embedkit: %s %s: %w: %s; body begins %q", method, path, ErrUnexpectedResponse, why, scrub(quoteBody(body), c.apiKey))
}

// send runs the retry loop. For a buffered call it returns the 2xx
// response with its body read (and closed) into the returned bytes; for a
// stream it returns the live response. Non-2xx answers become *APIError.
func (c *Client) send(req *http.Request, cl call) (*http.Response, []byte, error) {
	ctx := req.Context()
	method, path := req.Method, req.URL.Path
	tmpl := cl.template
	if tmpl == "" {
		tmpl = sanitizePath(path)
	}
	idempotent := cl.idempotent || isIdempotentMethod(method)
	rewindable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	hc := c.httpClient
	if cl.stream {
		hc = c.streamHTTP
	}
	p := c.retry

	var lastErr error
	var lastResp *http.Response
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return lastResp, nil, c.transportError(method, path, err, cl)
		}
		var done func(outcome)
		if c.breaker != nil {
			d, ok := c.breaker.allow()
			if !ok {
				if lastErr != nil {
					return lastResp, nil, lastErr
				}
				return nil, nil, fmt.Errorf("embedkit: %s %s: %w (retry in %s)", method, path, ErrCircuitOpen, c.breaker.retryIn().Round(time.Second))
			}
			done = d
		}

		r := req
		if attempt > 1 {
			r = req.Clone(ctx)
			if req.GetBody != nil {
				b, err := req.GetBody()
				if err != nil {
					if done != nil {
						done(outcomeNeutral)
					}
					return lastResp, nil, fmt.Errorf("embedkit: %s %s: rewinding request body: %w", method, path, err)
				}
				r.Body = b
			}
		}

		start := time.Now()
		resp, err := hc.Do(r)
		var body []byte
		var apiErr *APIError
		if err == nil {
			switch {
			case resp.StatusCode < 200 || resp.StatusCode > 299:
				apiErr = c.apiError(r, resp, cl)
			case !cl.stream:
				body, err = readBody(resp)
			}
		}
		latency := time.Since(start)

		o := outcomeSuccess
		switch {
		case err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil:
			o = outcomeNeutral
		case err != nil:
			o = outcomeFailure
		case resp.StatusCode >= 500:
			o = outcomeFailure
		}
		if done != nil {
			done(o)
		}
		c.logAttempt(ctx, method, tmpl, attempt, resp, err, latency)

		if err == nil && apiErr == nil {
			if !cl.stream {
				resp.Body = io.NopCloser(bytes.NewReader(body))
			}
			return resp, body, nil
		}

		if err != nil {
			lastErr, lastResp = c.transportError(method, path, err, cl), nil
		} else {
			lastErr, lastResp = apiErr, resp
		}

		if ctxErr := ctx.Err(); ctxErr != nil && apiErr != nil {
			// The caller gave up while the platform answered: the answer
			// is kept and the cancellation is what stopped the retries,
			// so errors.Is(err, context.Canceled) and errors.As(err,
			// **APIError) both hold.
			return lastResp, nil, &stoppedErr{answer: apiErr, cause: ctxErr}
		}
		if attempt >= p.MaxAttempts || !rewindable || !p.CheckRetry(ctx, idempotent, resp, err) {
			return lastResp, nil, lastErr
		}
		delay := p.Backoff(attempt, p.MinDelay, p.MaxDelay)
		if apiErr != nil && apiErr.RetryAfter > 0 {
			if apiErr.RetryAfter > p.MaxRetryAfter {
				return lastResp, nil, lastErr
			}
			delay = apiErr.RetryAfter
		}
		if !fitsDeadline(ctx, delay) {
			return lastResp, nil, lastErr
		}
		if err := c.sleep(ctx, delay); err != nil {
			return lastResp, nil, c.transportError(method, path, err, cl)
		}
	}
}

// readBody reads a bounded 2xx body and closes it.
func readBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	if n := resp.ContentLength; n >= 0 && n <= maxBody {
		// The usual answer: its length is known, so it is read into a
		// buffer of that size (the transport sees the end of the body
		// with its last byte and takes the connection back at once).
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBody {
		return nil, fmt.Errorf("%w: body larger than %d bytes", ErrUnexpectedResponse, maxBody)
	}
	return b, nil
}

// drain reads a little of an unwanted body and closes it, so the
// connection can be reused.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	_ = body.Close()
}

// apiError reads a non-2xx response into an *APIError and closes its body.
func (c *Client) apiError(req *http.Request, resp *http.Response, cl call) *APIError {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	drain(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	secrets := append([]string{c.apiKey}, cl.secrets...)
	e := &APIError{
		StatusCode:   resp.StatusCode,
		Method:       req.Method,
		Path:         req.URL.Path,
		RequestID:    scrub(sanitizeHeader(resp.Header.Get("X-Request-Id")), secrets...),
		credentialed: req.Header.Get("Authorization") != "",
	}
	if msg, ok := errorMessage(raw); ok {
		e.Message = scrub(quoteBody([]byte(msg)), secrets...)
		if g, ok := parseGroupsNotFound(msg); ok {
			for i, n := range g.Names {
				g.Names[i] = scrub(n, secrets...)
			}
			e.detail = g
		}
	} else if len(bytes.TrimSpace(raw)) > 0 {
		e.Body = scrub(quoteBody(bytes.TrimSpace(raw)), secrets...)
	}
	if retryAfterStatus(resp.StatusCode) {
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return e
}

// sanitizeHeader bounds a header value for an error message.
func sanitizeHeader(v string) string {
	if len(v) > 128 {
		v = v[:128]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, v)
}

// transportError wraps a failure to get a response: the method and path
// (never the query), and the cause without the URL.
func (c *Client) transportError(method, path string, err error, cl call) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return &transportErr{method: method, path: path, err: err, secrets: append([]string{c.apiKey}, cl.secrets...)}
}

// stoppedErr is a platform answer whose retries the caller's context
// stopped.
type stoppedErr struct {
	answer *APIError
	cause  error
}

// Error gives the answer and why it was not retried.
func (e *stoppedErr) Error() string {
	return e.answer.Error() + " (not retried: " + e.cause.Error() + ")"
}

// Unwrap gives both the answer and the context's error.
func (e *stoppedErr) Unwrap() []error { return []error{e.answer, e.cause} }

// transportErr is a failed exchange with the platform. Its message is
// scrubbed of secrets; Unwrap gives the cause (for errors.Is with
// context.DeadlineExceeded, net.Error, ...).
type transportErr struct {
	method, path string
	err          error
	secrets      []string
}

// Error names the method and path and the scrubbed cause.
func (e *transportErr) Error() string {
	return "embedkit: " + e.method + " " + e.path + ": " + scrub(e.err.Error(), e.secrets...)
}

// Unwrap returns the cause.
func (e *transportErr) Unwrap() error { return e.err }
