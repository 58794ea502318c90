package embedkit

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// csvTransport answers every request with status 200, a content type, a
// Content-Disposition and a body.
type csvTransport struct {
	contentType, disposition string
	body                     []byte
}

func (c *csvTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Type": {c.contentType}, "Content-Disposition": {c.disposition}},
		ContentLength: int64(len(c.body)),
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		Request:       r,
	}, nil
}

// FuzzAuditLogRead feeds ExportAuditLog and AuditLog.Read every answer a
// broken or hostile platform could stream: any CSV body, content type and
// Content-Disposition. The rows Read returns are the body's records as
// encoding/csv reads them (the header without a byte order mark), then
// io.EOF for good; a body that is no CSV gives one error naming the call
// and then io.EOF; an HTML or JSON document is refused as
// ErrUnexpectedResponse; the suggested file name never holds a directory
// or a control character; no error repeats the API key.
func FuzzAuditLogRead(f *testing.F) {
	const csvType = "text/csv; charset=utf-8"
	const attach = `attachment; filename="audit-log.csv"`
	f.Add(csvType, attach, []byte("time,eventName,userEmail,data\n2026-04-01T09:00:00Z,user.login,ada@example.com,\"{\"\"ip\"\":\"\"10.0.0.1\"\"}\"\n"))
	f.Add(csvType, attach, []byte("\ufefftime,eventName\r\n2026-04-01T09:00:00Z,user.login\r\n"))
	f.Add(csvType, attach, []byte(""))
	f.Add(csvType, attach, []byte("time\n"))
	f.Add(csvType, attach, []byte("a,b\n1,2,3\n4\n"))
	f.Add(csvType, attach, []byte("a,\"b\n1,2\n"))
	f.Add(csvType, attach, []byte("a,b\nx\"y,2\n"))
	f.Add(csvType, `attachment; filename="../../etc/passwd"`, []byte("a\n"))
	f.Add(csvType, "attachment; filename=\"a\\\\b\x7f.csv\"", []byte("a\n"))
	f.Add(csvType, `attachment; filename=".."`, []byte("a\n"))
	f.Add(csvType, `attachment; filename*=UTF-8''%E2%82%AC%0A.csv`, []byte("a\n"))
	f.Add("text/html", "", []byte("<html>sign in</html>"))
	f.Add("application/json", "", []byte(`{"error":"`+decodeFuzzKey+`"}`))
	f.Add("", "", []byte("\xff\xfe\x00a,b\n"))
	f.Add(csvType, attach, []byte("a,b\n\""+decodeFuzzKey+"\n"))

	f.Fuzz(func(t *testing.T, contentType, disposition string, body []byte) {
		rt := &csvTransport{contentType: contentType, disposition: disposition, body: body}
		c, err := New("https://platform.example.com", decodeFuzzKey,
			WithHTTPClient(&http.Client{Transport: rt}), WithRetry(RetryPolicy{MaxAttempts: 1}))
		if err != nil {
			t.Fatal(err)
		}
		checkErr := func(err error) {
			t.Helper()
			msg := err.Error()
			if strings.Contains(msg, decodeFuzzKey) {
				t.Fatalf("error repeats the API key: %q", msg)
			}
			if !strings.HasPrefix(msg, "embedkit: GET /api/v1/audit-logs/export") {
				t.Fatalf("error does not name the call: %q", msg)
			}
		}

		// What encoding/csv reads from the body, as the AuditLog's reader
		// is set up: any number of fields per record.
		want := csv.NewReader(bytes.NewReader(body))
		want.FieldsPerRecord = -1
		var records [][]string
		var wantErr error
		for {
			rec, err := want.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				wantErr = err
				break
			}
			records = append(records, rec)
		}

		a, err := c.ExportAuditLog(context.Background(), AuditLogOptions{})
		if mt := strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0])); err == nil && (mt == "text/html" || mt == "application/json") {
			t.Fatalf("a %s document was read as an audit log", contentType)
		}
		if err != nil {
			checkErr(err)
			switch {
			case errors.Is(err, ErrUnexpectedResponse):
			case wantErr != nil && len(records) == 0:
				// The header itself is no CSV.
			default:
				t.Fatalf("ExportAuditLog failed on a body encoding/csv reads (%d records, %v): %v", len(records), wantErr, err)
			}
			return
		}
		defer func() { _ = a.Close() }()

		name := a.Filename()
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\") ||
			strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("unsafe file name %q from %q", name, disposition)
		}

		if len(records) > 0 {
			hdr := append([]string(nil), records[0]...)
			hdr[0] = strings.TrimPrefix(hdr[0], "\ufeff")
			if !reflect.DeepEqual(a.Header(), hdr) {
				t.Fatalf("header %q, the body's %q", a.Header(), hdr)
			}
			records = records[1:]
		} else if a.Header() != nil {
			t.Fatalf("header %q from a body without records", a.Header())
		}

		var got [][]string
		var readErr error
		for range len(records) + 2 {
			rec, err := a.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				readErr = err
				break
			}
			got = append(got, rec)
		}
		if len(got) != len(records) || (len(got) > 0 && !reflect.DeepEqual(got, records)) {
			t.Fatalf("read %q, the body holds %q", got, records)
		}
		if (readErr != nil) != (wantErr != nil) {
			t.Fatalf("read error %v, encoding/csv's %v", readErr, wantErr)
		}
		if readErr != nil {
			checkErr(readErr)
			if !utf8.ValidString(readErr.Error()) && utf8.Valid(body) {
				t.Fatalf("read error is not valid UTF-8: %q", readErr)
			}
		}
		for range 2 {
			if rec, err := a.Read(); !errors.Is(err, io.EOF) {
				t.Fatalf("Read after the end gave %q, %v; want io.EOF", rec, err)
			}
		}
		for rec, err := range a.Rows() {
			t.Fatalf("Rows after the end yielded %q, %v", rec, err)
		}
	})
}
