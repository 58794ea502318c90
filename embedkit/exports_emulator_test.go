package embedkit_test

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

func TestClientAgainstEmulatorDashboardExports(t *testing.T) {
	ctx := context.Background()

	completed := []struct {
		name     string
		req      embedkit.DashboardExportRequest
		filename string
		wantName string
		wantType string
	}{
		{"png by id", embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG}, "", "dashboard.png", "image/png"},
		{"pdf by public id", embedkit.DashboardExportRequest{DashboardPublicID: "regional-performance", Format: embedkit.FormatPDF}, "", "dashboard.pdf", "application/pdf"},
		{"png with a file name", embedkit.DashboardExportRequest{DashboardPublicID: "sales-overview", Format: embedkit.FormatPNG}, "q3-report", "q3-report.png", "image/png"},
		{"pdf with a file name", embedkit.DashboardExportRequest{DashboardID: 13, Format: embedkit.FormatPDF}, "regions", "regions.pdf", "application/pdf"},
		{"file name with spaces", embedkit.DashboardExportRequest{DashboardID: 13, Format: embedkit.FormatPDF}, "Q3 report", "Q3_report.pdf", "application/pdf"},
		{"rendered as an embed user", embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG, RenderAs: &embedkit.RenderAs{
			Type: embedkit.SubjectEmbedUser, ExternalID: "render-subject", Groups: []string{"emea"},
		}}, "", "dashboard.png", "image/png"},
	}
	for _, tt := range completed {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t)
			c := e.client(t, keyAdminAll)
			job, err := c.SubmitDashboardExport(ctx, 1, &tt.req)
			if err != nil {
				t.Fatalf("SubmitDashboardExport: %v", err)
			}
			if !job.ExpiresAt.Equal(emuStart.Add(5 * time.Minute)) {
				t.Errorf("expiresAt = %v, want submission + 5m", job.ExpiresAt)
			}
			st, err := c.WaitDashboardExport(ctx, 1, job)
			if err != nil {
				t.Fatalf("WaitDashboardExport: %v", err)
			}
			if st.Status != embedkit.ExportCompleted || st.ContentType != tt.wantType {
				t.Errorf("status %s, content type %q; want completed, %s", st.Status, st.ContentType, tt.wantType)
			}
			f, err := c.DownloadDashboardExport(ctx, 1, job.JobID, tt.filename)
			if err != nil {
				t.Fatalf("DownloadDashboardExport: %v", err)
			}
			defer f.Body.Close()
			if f.Filename != tt.wantName || f.ContentType != tt.wantType {
				t.Errorf("file %q, %q; want %q, %q", f.Filename, f.ContentType, tt.wantName, tt.wantType)
			}
			body, err := io.ReadAll(f.Body)
			if err != nil {
				t.Fatalf("reading the file: %v", err)
			}
			switch tt.req.Format {
			case embedkit.FormatPNG:
				img, err := png.Decode(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("the PNG does not decode: %v", err)
				}
				if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
					t.Errorf("PNG is %dx%d, want a rendered page", b.Dx(), b.Dy())
				}
			case embedkit.FormatPDF:
				if !bytes.HasPrefix(body, []byte("%PDF-")) || !bytes.Contains(body, []byte("%%EOF")) {
					t.Errorf("the PDF does not start with %%PDF- and end with %%%%EOF (%d bytes)", len(body))
				}
			}
		})
	}

	t.Run("failed render", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardPublicID: "broken-board", Format: embedkit.FormatPDF})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		st, err := c.WaitDashboardExport(ctx, 1, job)
		var fe *embedkit.ExportFailedError
		if !errors.As(err, &fe) {
			t.Fatalf("error = %v, want *ExportFailedError", err)
		}
		if fe.Reason != "widget 3 failed to load" || fe.JobID != job.JobID {
			t.Errorf("ExportFailedError reason %q, right job %v; want the fixture's message", fe.Reason, fe.JobID == job.JobID)
		}
		if st == nil || st.Status != embedkit.ExportFailed {
			t.Errorf("status = %+v, want failed", st)
		}
		_, err = c.DownloadDashboardExport(ctx, 1, job.JobID, "")
		wantAPIError(t, err, http.StatusUnprocessableEntity, "")
		if !errors.Is(err, embedkit.ErrUnprocessable) {
			t.Errorf("errors.Is(err, ErrUnprocessable) = false")
		}
	})

	t.Run("download while rendering", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		st, err := c.DashboardExportStatus(ctx, 1, job.JobID)
		if err != nil || st.Status != embedkit.ExportPending {
			t.Fatalf("first poll = %+v, %v; want pending", st, err)
		}
		_, err = c.DownloadDashboardExport(ctx, 1, job.JobID, "")
		wantAPIError(t, err, http.StatusConflict, "")
		if !errors.Is(err, embedkit.ErrConflict) {
			t.Errorf("errors.Is(err, ErrConflict) = false")
		}
		st, err = c.DashboardExportStatus(ctx, 1, job.JobID)
		if err != nil || st.Status != embedkit.ExportProcessing || st.Progress == nil || *st.Progress != 50 {
			t.Fatalf("second poll = %+v, %v; want processing at 50", st, err)
		}
	})

	t.Run("expired job", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		e.emu.Advance(6 * time.Minute)
		_, err = c.WaitDashboardExport(ctx, 1, job)
		if !errors.Is(err, embedkit.ErrExportExpired) || !errors.Is(err, embedkit.ErrNotFound) {
			t.Errorf("WaitDashboardExport = %v, want ErrExportExpired wrapping ErrNotFound", err)
		}
		_, err = c.DownloadDashboardExport(ctx, 1, job.JobID, "")
		if !errors.Is(err, embedkit.ErrNotFound) {
			t.Errorf("DownloadDashboardExport = %v, want ErrNotFound", err)
		}
	})

	t.Run("expiry seen on the client clock", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		job, err := c.SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		e.clock.Advance(5 * time.Minute)
		before := len(e.emu.Requests())
		_, err = c.WaitDashboardExport(ctx, 1, job)
		if !errors.Is(err, embedkit.ErrExportExpired) {
			t.Errorf("WaitDashboardExport = %v, want ErrExportExpired", err)
		}
		if n := len(e.emu.Requests()) - before; n != 0 {
			t.Errorf("%d polls after the job's expiry, want none", n)
		}
	})

	t.Run("exports in flight", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		req := &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG}
		var jobs []*embedkit.ExportJob
		for i := range 3 {
			job, err := c.SubmitDashboardExport(ctx, 1, req)
			if err != nil {
				t.Fatalf("submit %d: %v", i+1, err)
			}
			jobs = append(jobs, job)
		}
		_, err := c.SubmitDashboardExport(ctx, 1, req)
		wantAPIError(t, err, http.StatusTooManyRequests, "in flight")
		if !errors.Is(err, embedkit.ErrRateLimited) {
			t.Errorf("errors.Is(err, ErrRateLimited) = false")
		}
		// Another identity has its own budget.
		ra := &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG,
			RenderAs: &embedkit.RenderAs{Type: embedkit.SubjectEmbedUser, ExternalID: "someone-else"}}
		if _, err := c.SubmitDashboardExport(ctx, 1, ra); err != nil {
			t.Errorf("submit as another identity: %v", err)
		}
		// A finished job frees its slot.
		if _, err := c.WaitDashboardExport(ctx, 1, jobs[0]); err != nil {
			t.Fatalf("WaitDashboardExport: %v", err)
		}
		if _, err := c.SubmitDashboardExport(ctx, 1, req); err != nil {
			t.Errorf("submit after a job finished: %v", err)
		}
	})

	errTests := []struct {
		name   string
		key    string
		req    embedkit.DashboardExportRequest
		status int
		msg    string
	}{
		{"unpublished dashboard", keyAdminAll, embedkit.DashboardExportRequest{DashboardPublicID: "draft-board", Format: embedkit.FormatPNG}, http.StatusBadRequest, "only a published dashboard"},
		{"dashboard not in the deployment", keyAdminAll, embedkit.DashboardExportRequest{DashboardID: 999, Format: embedkit.FormatPNG}, http.StatusNotFound, "dashboard 999"},
		{"no manage access", keyPersonal, embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG}, http.StatusForbidden, "manage access"},
		{"renderAs by a non-administrator", keyPersonal, embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG,
			RenderAs: &embedkit.RenderAs{Type: embedkit.SubjectEmbedUser, ExternalID: "x"}}, http.StatusForbidden, "administrator"},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEmulator(t)
			_, err := e.client(t, tt.key).SubmitDashboardExport(ctx, 1, &tt.req)
			wantAPIError(t, err, tt.status, tt.msg)
		})
	}

	t.Run("only the submitter sees the job", func(t *testing.T) {
		e := startEmulator(t)
		job, err := e.client(t, keyAdminAll).SubmitDashboardExport(ctx, 1, &embedkit.DashboardExportRequest{DashboardID: 10, Format: embedkit.FormatPNG})
		if err != nil {
			t.Fatalf("SubmitDashboardExport: %v", err)
		}
		other := e.client(t, keyPersonal)
		_, err = other.DashboardExportStatus(ctx, 1, job.JobID)
		wantAPIError(t, err, http.StatusNotFound, "")
		_, err = other.DownloadDashboardExport(ctx, 1, job.JobID, "")
		wantAPIError(t, err, http.StatusNotFound, "")
	})

	t.Run("client refuses bad requests before sending", func(t *testing.T) {
		e := startEmulator(t)
		c := e.client(t, keyAdminAll)
		bad := []struct {
			req   embedkit.DashboardExportRequest
			field string
		}{
			{embedkit.DashboardExportRequest{DashboardID: 10, DashboardPublicID: "sales-overview", Format: embedkit.FormatPNG}, "dashboardId"},
			{embedkit.DashboardExportRequest{Format: embedkit.FormatPNG}, "dashboardId"},
			{embedkit.DashboardExportRequest{DashboardID: 10, Format: "svg"}, "format"},
			{embedkit.DashboardExportRequest{DashboardID: 10}, "format"},
		}
		for _, b := range bad {
			_, err := c.SubmitDashboardExport(ctx, 1, &b.req)
			wantValidation(t, err, b.field)
		}
		_, err := c.DownloadDashboardExport(ctx, 1, "job", "../etc/passwd")
		wantValidation(t, err, "filename")
		if n := len(e.emu.Requests()); n != 0 {
			t.Errorf("%d requests reached the emulator, want none", n)
		}
		// Sent directly, the emulator refuses the same bodies with 400.
		for _, b := range bad {
			hreq, err := c.NewRequest(ctx, http.MethodPost, "/api/v1/deployments/1/dashboard-exports", &b.req)
			if err != nil {
				t.Fatalf("NewRequest: %v", err)
			}
			_, err = c.Do(hreq, nil)
			wantAPIError(t, err, http.StatusBadRequest, b.field)
		}
	})
}
