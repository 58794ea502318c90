package embedkit

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
)

// AuditLogOptions filter the audit-log export. All are optional. Start and
// End are days: the platform takes ISO 8601 dates (YYYY-MM-DD). Each is
// sent as its date in its own location, so it must be midnight there (a
// value from time.Date(y, m, d, 0, 0, 0, 0, loc)); a value with a time of
// day is refused rather than cut to its date.
type AuditLogOptions struct {
	Start     time.Time
	End       time.Time
	Search    string
	EventName string
	UserEmail string
}

// Validate reports the problems of audit-log export options, Op
// "audit-log-export": start and end, when set, are midnight in their own
// locations (the platform takes dates, and a time of day would be lost)
// in the years 0000 to 9999 (YYYY-MM-DD has four digits for the year),
// the end's date is not before the start's (when both are set), and
// userEmail, when set, is an email address (the specification's "string
// <EMAIL>"). Nil options are valid.
func (o *AuditLogOptions) Validate() error {
	if o == nil {
		return nil
	}
	p := problems{op: "audit-log-export"}
	startOK := checkDay(&p, "start", o.Start)
	endOK := checkDay(&p, "end", o.End)
	if endOK && startOK && !o.Start.IsZero() && !o.End.IsZero() && dateBefore(o.End, o.Start) {
		p.add("end", "must not be before start")
	}
	if o.UserEmail != "" && !IsEmailAddress(o.UserEmail) {
		p.add("userEmail", ruleEmail)
	}
	return p.err()
}

// AuditLog is an audit-log export being read. It reads the platform's CSV
// straight from the response body, one record at a time, so an export of
// any size uses a small, fixed amount of memory. Close it when done.
//
// An AuditLog is not safe for concurrent use.
type AuditLog struct {
	body     io.ReadCloser
	r        *csv.Reader
	header   []string
	filename string
	path     string
	done     bool
	once     sync.Once
	closeErr error
}

// ExportAuditLog starts an audit-log export:
// GET /api/v1/audit-logs/export?start=&end=&search=&eventName=&userEmail=.
// It returns once the CSV header has arrived; read the rows with Read or
// Rows, then Close. Start and End are sent as the dates (YYYY-MM-DD) they
// have in their own locations; one with a time of day is refused (see
// AuditLogOptions).
//
// The export needs the audit log feature and the AuditLogManage
// permission; without them the platform answers 403.
func (c *Client) ExportAuditLog(ctx context.Context, opts AuditLogOptions) (*AuditLog, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	q := url.Values{}
	if !opts.Start.IsZero() {
		q.Set("start", isoDate(opts.Start))
	}
	if !opts.End.IsZero() {
		q.Set("end", isoDate(opts.End))
	}
	if opts.Search != "" {
		q.Set("search", opts.Search)
	}
	if opts.EventName != "" {
		q.Set("eventName", opts.EventName)
	}
	if opts.UserEmail != "" {
		q.Set("userEmail", opts.UserEmail)
	}
	hreq, err := c.NewRequest(ctx, http.MethodGet, withQuery("/api/v1/audit-logs/export", q), nil)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", "text/csv, application/json;q=0.5")
	resp, _, err := c.send(hreq, call{template: "/api/v1/audit-logs/export", stream: true})
	if err != nil {
		return nil, err
	}
	if err := c.rejectDocument(hreq, resp); err != nil {
		return nil, err
	}
	a := &AuditLog{
		body:     resp.Body,
		filename: attachmentName(resp.Header.Get("Content-Disposition")),
		path:     hreq.URL.Path,
	}
	if a.filename == "" {
		a.filename = "audit-log.csv"
	}
	a.r = csv.NewReader(resp.Body)
	a.r.FieldsPerRecord = -1
	hdr, err := a.r.Read()
	switch {
	case errors.Is(err, io.EOF):
		a.done = true
	case err != nil:
		_ = a.Close()
		return nil, a.wrap(err)
	default:
		if len(hdr) > 0 {
			hdr[0] = strings.TrimPrefix(hdr[0], "\ufeff")
		}
		a.header = hdr
	}
	return a, nil
}

// checkDay adds field's problem when t, set, is not a day the platform
// can be sent: midnight in its own location, in a year of four digits
// (YYYY-MM-DD has no room for a sign or a fifth digit; Format would write
// "-0001-01-01" or "10000-01-01", which the platform refuses). It reports
// whether t is a sendable day or unset.
func checkDay(p *problems, field string, t time.Time) bool {
	switch {
	case t.IsZero():
		return true
	case !isMidnight(t):
		p.add(field, ruleDate)
		return false
	case t.Year() < 0 || t.Year() > 9999:
		p.add(field, ruleDateYear)
		return false
	}
	return true
}

// isoDate formats t as the ISO 8601 date (YYYY-MM-DD) it has in its own
// location. Validate has made sure t is midnight there, so nothing is cut.
func isoDate(t time.Time) string {
	return t.Format(time.DateOnly)
}

// isMidnight reports whether t is the start of a day in its own location.
func isMidnight(t time.Time) bool {
	h, m, s := t.Clock()
	return h == 0 && m == 0 && s == 0 && t.Nanosecond() == 0
}

// dateBefore reports whether the date of a, in its location, is before
// the date of b, in its.
func dateBefore(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	if ay != by {
		return ay < by
	}
	if am != bm {
		return am < bm
	}
	return ad < bd
}

// rejectDocument fails a streamed 2xx whose body is an HTML page or a JSON
// document instead of a file, quoting a bounded prefix; it closes the body
// in that case.
func (c *Client) rejectDocument(req *http.Request, resp *http.Response) error {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/html" && mt != "application/json" {
		return nil
	}
	prefix, _ := io.ReadAll(io.LimitReader(resp.Body, maxQuote+1))
	drain(resp.Body)
	return c.unexpected(req.Method, req.URL.Path, prefix, false, fmt.Errorf("content type %s instead of a file", mt))
}

// attachmentName reads a safe file name from a Content-Disposition header:
// no directories, no control characters.
func attachmentName(cd string) string {
	if cd == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(cd)
	if err != nil {
		return ""
	}
	name := strings.ReplaceAll(params["filename"], "\\", "/")
	name = path.Base(name)
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if name == "." || name == "/" || name == ".." {
		return ""
	}
	return name
}

// wrap gives a read error the operation's context.
func (a *AuditLog) wrap(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Errorf("embedkit: GET %s: reading audit log: %w", a.path, err)
}

// Header returns the CSV header row (nil for an empty export).
func (a *AuditLog) Header() []string { return a.header }

// Filename returns the file name the platform suggested, or
// "audit-log.csv".
func (a *AuditLog) Filename() string { return a.filename }

// Read returns the next row. It returns io.EOF after the last row.
func (a *AuditLog) Read() ([]string, error) {
	if a.done {
		return nil, io.EOF
	}
	rec, err := a.r.Read()
	if errors.Is(err, io.EOF) {
		a.done = true
		return nil, io.EOF
	}
	if err != nil {
		a.done = true
		return nil, a.wrap(err)
	}
	return rec, nil
}

// Rows iterates over the remaining rows. A read error is yielded once and
// ends the iteration. Rows does not close the AuditLog.
func (a *AuditLog) Rows() iter.Seq2[[]string, error] {
	return func(yield func([]string, error) bool) {
		for {
			rec, err := a.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// Close releases the response. It is safe to call more than once.
func (a *AuditLog) Close() error {
	a.once.Do(func() {
		a.done = true
		a.closeErr = a.body.Close()
	})
	return a.closeErr
}
