package embedkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestExportAuditLog(t *testing.T) {
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/audit-logs/export", func(w http.ResponseWriter, r *http.Request) {
		testHeader(t, r, "Authorization", "Bearer "+testKey)
		testQuery(t, r, "end=2024-02-01&eventName=Logged+in&search=deploy&start=2024-01-01&userEmail=a%40example.com")
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="../../etc/audit-2024.csv"`)
		io.WriteString(w, "\ufefftimestamp,user email,event name\n2024-01-01T00:00:00Z,a@example.com,Logged in\n\"2024-01-02T00:00:00Z\",\"b@example.com\",\"Created, \"\"x\"\"\"\nshort\n")
	})
	log, err := c.ExportAuditLog(context.Background(), AuditLogOptions{
		Start:     time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		End:       time.Date(2024, 2, 1, 0, 0, 0, 0, time.FixedZone("UTC-5", -5*3600)),
		Search:    "deploy",
		EventName: "Logged in",
		UserEmail: "a@example.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if got := strings.Join(log.Header(), "|"); got != "timestamp|user email|event name" {
		t.Errorf("header = %q", got)
	}
	if log.Filename() != "audit-2024.csv" {
		t.Errorf("filename = %q", log.Filename())
	}
	row, err := log.Read()
	if err != nil || row[2] != "Logged in" {
		t.Fatalf("row 1 = %q, %v", row, err)
	}
	var rows [][]string
	for r, err := range log.Rows() {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if len(rows) != 2 || rows[0][2] != `Created, "x"` || rows[1][0] != "short" {
		t.Errorf("rows = %q", rows)
	}
	if _, err := log.Read(); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
	if err := log.Close(); err != nil {
		t.Error(err)
	}
	if err := log.Close(); err != nil {
		t.Error("second Close:", err)
	}
}

func TestExportAuditLogEdgeCases(t *testing.T) {
	c, mux, _ := setup(t, WithRetry(RetryPolicy{MaxAttempts: 1}))
	body := ""
	ctype := "text/csv"
	status := 200
	mux.HandleFunc("GET /api/v1/audit-logs/export", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
	ctx := context.Background()

	// Empty export: no header, EOF at once, default filename.
	log, err := c.ExportAuditLog(ctx, AuditLogOptions{})
	if err != nil || log.Header() != nil || log.Filename() != "audit-log.csv" {
		t.Fatalf("empty: %v %v", log, err)
	}
	if _, err := log.Read(); err != io.EOF {
		t.Error(err)
	}
	log.Close()

	// A malformed row is an error naming the operation; Rows yields it once.
	body = "a,b\n\"unterminated\n"
	log, err = c.ExportAuditLog(ctx, AuditLogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range log.Rows() {
		n++
		if err == nil || !strings.Contains(err.Error(), "reading audit log") {
			t.Errorf("err = %v", err)
		}
	}
	if n != 1 {
		t.Errorf("%d yields", n)
	}
	log.Close()

	// A malformed header.
	body = "\"a\"b\n"
	if _, err := c.ExportAuditLog(ctx, AuditLogOptions{}); err == nil {
		t.Error("bad header accepted")
	}

	// An HTML page instead of a file.
	body, ctype = "<html><body>Sign in</body></html>", "text/html"
	if _, err := c.ExportAuditLog(ctx, AuditLogOptions{}); !errors.Is(err, ErrUnexpectedResponse) || !strings.Contains(err.Error(), "Sign in") {
		t.Errorf("html: %v", err)
	}

	// 403 without the permission.
	body, ctype, status = `{"error":"AuditLogManage required"}`, "application/json", 403
	if _, err := c.ExportAuditLog(ctx, AuditLogOptions{}); !errors.Is(err, ErrForbidden) {
		t.Errorf("403: %v", err)
	}

	// Options are validated.
	if _, err := c.ExportAuditLog(ctx, AuditLogOptions{UserEmail: "not an email"}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("bad email: %v", err)
	}
}

func TestAttachmentName(t *testing.T) {
	tests := map[string]string{
		``:                                         "",
		`attachment; filename="a.csv"`:             "a.csv",
		`attachment; filename="..\\..\\x.csv"`:     "x.csv",
		`attachment; filename="/"`:                 "",
		`attachment; filename=".."`:                "",
		`attachment; filename*=UTF-8''r%C3%A9.csv`: "ré.csv",
		`attachment; filename="a` + "\x01" + `b"`:  "ab",
		`garbage;;`:                                "",
	}
	for in, want := range tests {
		if got := attachmentName(in); got != want {
			t.Errorf("attachmentName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestIsoDate: start and end are ISO 8601 dates (the specification's
// "start (ISO 8601 date)"): the date of the value in its own location,
// never a timestamp (a value off midnight UTC was sent as RFC 3339).
func TestIsoDate(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		want string
	}{
		{name: "midnight UTC", t: time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC), want: "2024-03-04"},
		{name: "midnight east of UTC", t: time.Date(2024, 3, 4, 0, 0, 0, 0, time.FixedZone("x", 3600)), want: "2024-03-04"},
		{name: "midnight west of UTC", t: time.Date(2024, 3, 4, 0, 0, 0, 0, time.FixedZone("y", -10*3600)), want: "2024-03-04"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isoDate(tt.t); got != tt.want {
				t.Errorf("isoDate(%v) = %q, want %q", tt.t, got, tt.want)
			}
		})
	}
}

// csvSource generates an audit CSV of about size bytes without holding
// it in memory.
type csvSource struct {
	row     int
	size    int64
	written int64
	pending []byte
}

func (s *csvSource) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(s.pending) == 0 {
			if s.written >= s.size {
				break
			}
			s.row++
			s.pending = fmt.Appendf(nil, "2024-01-01T00:00:%02dZ,user%d@example.com,Logged in,deployment %d,\"attrs, with comma\"\n", s.row%60, s.row, s.row%7)
		}
		k := copy(p[n:], s.pending)
		s.pending = s.pending[k:]
		n += k
		s.written += int64(k)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// TestAuditLogStreams: a large export is read row by row while the
// server is still sending. The server sends the header and a first chunk,
// then waits until the client has read those rows before sending the
// rest: a client that buffered the whole body would never see a row and
// the test would time out.
func TestAuditLogStreams(t *testing.T) {
	size := int64(50 << 20)
	if testing.Short() || raceEnabled {
		size = 8 << 20
	}
	c, mux, _ := setup(t)
	firstRowsRead := make(chan struct{})
	const firstChunkRows = 100
	var sent atomic.Int64
	mux.HandleFunc("GET /api/v1/audit-logs/export", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		io.WriteString(w, "timestamp,user email,event name,deployment,attributes\n")
		src := &csvSource{size: size}
		for range firstChunkRows {
			src.pending = nil
			src.row++
			fmt.Fprintf(w, "2024-01-01T00:00:00Z,user%d@example.com,Logged in,d,x\n", src.row)
		}
		w.(http.Flusher).Flush()
		select {
		case <-firstRowsRead:
		case <-time.After(20 * time.Second):
			t.Error("the client did not read the first rows before the rest was sent: it buffers")
			return
		}
		n, _ := io.Copy(w, src)
		sent.Store(n)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log, err := c.ExportAuditLog(ctx, AuditLogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if len(log.Header()) != 5 {
		t.Fatalf("header = %q", log.Header())
	}
	rows := 0
	for row, err := range log.Rows() {
		if err != nil {
			t.Fatal(err)
		}
		rows++
		if rows == firstChunkRows {
			close(firstRowsRead)
		}
		if len(row) != 5 {
			t.Fatalf("row %d has %d fields", rows, len(row))
		}
	}
	if rows <= firstChunkRows || sent.Load() < size {
		t.Errorf("read %d rows, server sent %d bytes of %d", rows, sent.Load(), size)
	}
}

// TestAuditLogCancel: cancelling the context ends a stream in progress.
func TestAuditLogCancel(t *testing.T) {
	c, mux, _ := setup(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux.HandleFunc("GET /api/v1/audit-logs/export", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "a,b\n1,2\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	log, err := c.ExportAuditLog(ctx, AuditLogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if _, err := log.Read(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := log.Read(); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestAuditLogOptionsValidate(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		o    *AuditLogOptions
		want []FieldError
	}{
		{name: "nil options", o: nil},
		{name: "no filters", o: &AuditLogOptions{}},
		{name: "range and email", o: &AuditLogOptions{Start: day, End: day.AddDate(0, 1, 0), UserEmail: "ada@acme.example.com"}},
		{name: "same day", o: &AuditLogOptions{Start: day, End: day}},
		{name: "open end", o: &AuditLogOptions{Start: day}},
		{name: "end before start", o: &AuditLogOptions{Start: day, End: day.AddDate(0, 0, -1)},
			want: []FieldError{fe("end", "must not be before start")}},
		{name: "dates in other locations", o: &AuditLogOptions{
			Start: time.Date(2025, 3, 1, 0, 0, 0, 0, time.FixedZone("UTC+2", 2*3600)),
			End:   time.Date(2025, 3, 1, 0, 0, 0, 0, time.FixedZone("UTC-8", -8*3600)),
		}},
		{name: "end before start by date, not by instant", o: &AuditLogOptions{
			// 2025-03-01T10:00Z, then 2025-03-01T12:00Z: later as an
			// instant, a day earlier as the date that is sent.
			Start: time.Date(2025, 3, 2, 0, 0, 0, 0, time.FixedZone("UTC+14", 14*3600)),
			End:   time.Date(2025, 3, 1, 0, 0, 0, 0, time.FixedZone("UTC-12", -12*3600)),
		}, want: []FieldError{fe("end", "must not be before start")}},
		{name: "times of day", o: &AuditLogOptions{Start: day.Add(8 * time.Hour), End: day.AddDate(0, 0, 1).Add(-time.Nanosecond)},
			want: []FieldError{fe("start", ruleDate), fe("end", ruleDate)}},
		{name: "midnight UTC seen from another zone has a time of day", o: &AuditLogOptions{Start: day.In(time.FixedZone("UTC+2", 2*3600))},
			want: []FieldError{fe("start", ruleDate)}},
		{name: "years of four digits", o: &AuditLogOptions{Start: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}},
		// isoDate would send "-0001-01-01" and "10000-01-01", which are not
		// YYYY-MM-DD: the emulator answered 400 to a request Validate passed
		// (found by FuzzValidateRequests).
		{name: "years beyond four digits", o: &AuditLogOptions{Start: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
			want: []FieldError{fe("start", ruleDateYear), fe("end", ruleDateYear)}},
		{name: "bad email", o: &AuditLogOptions{UserEmail: "ada@"}, want: []FieldError{fe("userEmail", "must be an email address")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "audit-log-export", tt.o.Validate(), tt.want) })
	}
}
