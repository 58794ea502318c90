package embedkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

func TestClientAgainstEmulatorAuditLog(t *testing.T) {
	ctx := context.Background()
	e := startEmulator(t)
	c := e.client(t, keyAdminAll)
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	plus2 := time.FixedZone("UTC+2", 2*60*60)

	tests := []struct {
		name string
		opts embedkit.AuditLogOptions
		want []string // event names, oldest first
	}{
		{"no filter", embedkit.AuditLogOptions{}, []string{"Logged in", "Entered dev mode", "Logged in", "Entered dev mode", "Logged in"}},
		{"eventName", embedkit.AuditLogOptions{EventName: "Logged in"}, []string{"Logged in", "Logged in", "Logged in"}},
		{"userEmail any case", embedkit.AuditLogOptions{UserEmail: "Admin@Acme.test"}, []string{"Logged in", "Entered dev mode", "Logged in"}},
		{"search", embedkit.AuditLogOptions{Search: "203.0.113"}, []string{"Logged in"}},
		{"start date", embedkit.AuditLogOptions{Start: day(2)}, []string{"Logged in", "Entered dev mode", "Logged in"}},
		{"end date is inclusive", embedkit.AuditLogOptions{End: day(1)}, []string{"Logged in", "Entered dev mode"}},
		{"one day", embedkit.AuditLogOptions{Start: day(2), End: day(2)}, []string{"Logged in", "Entered dev mode"}},
		{"local midnight is that date", embedkit.AuditLogOptions{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, plus2)}, []string{"Logged in", "Entered dev mode", "Logged in"}},
		{"filters combined", embedkit.AuditLogOptions{Start: day(1), End: day(2), EventName: "Logged in", UserEmail: "dana@acme.test"}, []string{"Logged in"}},
		{"nothing matches", embedkit.AuditLogOptions{EventName: "no.such.event"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := c.ExportAuditLog(ctx, tt.opts)
			if err != nil {
				t.Fatalf("ExportAuditLog: %v", err)
			}
			defer a.Close()
			if !slices.Equal(a.Header(), []string{"time", "eventName", "userEmail", "data"}) {
				t.Errorf("header = %q", a.Header())
			}
			if a.Filename() != "audit-log.csv" {
				t.Errorf("filename = %q", a.Filename())
			}
			var got []string
			for row, err := range a.Rows() {
				if err != nil {
					t.Fatalf("Rows: %v", err)
				}
				if len(row) != 4 {
					t.Fatalf("row has %d columns, want 4", len(row))
				}
				if _, err := time.Parse(time.RFC3339, row[0]); err != nil {
					t.Errorf("time column %q is not RFC 3339", row[0])
				}
				if !json.Valid([]byte(row[3])) {
					t.Errorf("data column %q is not JSON", row[3])
				}
				got = append(got, row[1])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
			if _, err := a.Read(); err != io.EOF {
				t.Errorf("Read after the last row = %v, want io.EOF", err)
			}
			if err := a.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}

	t.Run("personal key lacks AuditLogManage", func(t *testing.T) {
		_, err := e.client(t, keyPersonal).ExportAuditLog(ctx, embedkit.AuditLogOptions{})
		wantAPIError(t, err, http.StatusForbidden, "AuditLogManage")
		if !errors.Is(err, embedkit.ErrForbidden) {
			t.Errorf("errors.Is(err, ErrForbidden) = false")
		}
	})

	t.Run("client refuses bad filters before sending", func(t *testing.T) {
		before := len(e.emu.Requests())
		_, err := c.ExportAuditLog(ctx, embedkit.AuditLogOptions{Start: day(3), End: day(1)})
		wantValidation(t, err, "end")
		// The platform takes dates: a time of day is refused, not truncated.
		_, err = c.ExportAuditLog(ctx, embedkit.AuditLogOptions{Start: time.Date(2026, 3, 2, 8, 45, 0, 0, time.UTC)})
		wantValidation(t, err, "start")
		_, err = c.ExportAuditLog(ctx, embedkit.AuditLogOptions{End: time.Date(2026, 3, 1, 10, 0, 0, 0, plus2)})
		wantValidation(t, err, "end")
		_, err = c.ExportAuditLog(ctx, embedkit.AuditLogOptions{UserEmail: "not an address"})
		wantValidation(t, err, "userEmail")
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
	})
}
