package embedkit

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// This file holds what the client logs of each attempt, and how a path is
// written in a log record without an id in it.

// logAttempt writes the per-attempt debug record.
func (c *Client) logAttempt(ctx context.Context, method, tmpl string, attempt int, resp *http.Response, err error, latency time.Duration) {
	if !c.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("path", tmpl),
		slog.Int("attempt", attempt),
		slog.Duration("latency", latency),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		attrs = append(attrs, slog.String("error", scrub(err.Error(), c.apiKey)))
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "embedkit request", attrs...)
}

// sanitizePath turns a raw path into a template for logs: segments that
// look like identifiers become "{id}".
func sanitizePath(p string) string {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if looksLikeID(s) {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}

// looksLikeID reports whether a path segment is a number or a long token.
func looksLikeID(s string) bool {
	if s == "" {
		return false
	}
	digits, letters, other := 0, 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
			letters++
		default:
			other++
		}
	}
	if letters == 0 && other == 0 {
		return true
	}
	return len(s) >= 16 && digits > 0
}
