package embedkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ExportFile is a downloaded dashboard export. Body streams the file
// from the platform; the caller must close it.
type ExportFile struct {
	// Body is the file, read straight from the response.
	Body io.ReadCloser
	// ContentType is "image/png" or "application/pdf".
	ContentType string
	// Filename is the name the platform suggested, for example
	// "dashboard.pdf".
	Filename string
}

// exportsPath is /api/v1/deployments/{id}/dashboard-exports.
func exportsPath(deploymentID int64) string {
	return deploymentPath(deploymentID) + "/dashboard-exports"
}

// checkJob is the path check of the job endpoints.
func checkJob(deploymentID int64, jobID string) []FieldError {
	probs := checkDeployment(deploymentID)
	if strings.TrimSpace(jobID) == "" {
		probs = append(probs, FieldError{Field: "jobId", Rule: "is required"})
	}
	return probs
}

// SubmitDashboardExport submits a PNG or PDF render of a published
// dashboard: POST /api/v1/deployments/{deploymentId}/dashboard-exports.
// The job and its file are dropped at the returned ExpiresAt (5 minutes);
// wait for it with WaitDashboardExport and download it before then. The
// call is not retried once it may have reached the platform.
func (c *Client) SubmitDashboardExport(ctx context.Context, deploymentID int64, req *DashboardExportRequest) (*ExportJob, error) {
	probs := checkDeployment(deploymentID)
	var bodyErr error
	if req == nil {
		probs = append(probs, FieldError{Field: "format", Rule: "is required"})
	} else {
		bodyErr = req.Validate()
	}
	if err := validationErr("dashboard-export", probs, bodyErr); err != nil {
		return nil, err
	}
	return fetch(ctx, c, http.MethodPost, exportsPath(deploymentID), req,
		call{template: "/api/v1/deployments/{deploymentId}/dashboard-exports"}, decodeExportJob)
}

// DashboardExportStatus polls an export job:
// GET /api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}. Only
// the identity that submitted the job can poll it; an expired job gives a
// 404.
func (c *Client) DashboardExportStatus(ctx context.Context, deploymentID int64, jobID string) (*ExportStatus, error) {
	if err := validationErr("dashboard-export-status", checkJob(deploymentID, jobID), nil); err != nil {
		return nil, err
	}
	return fetch(ctx, c, http.MethodGet, exportsPath(deploymentID)+"/"+url.PathEscape(jobID), nil,
		call{template: "/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}"}, decodeExportStatus)
}

// DownloadDashboardExport streams the file of a completed export:
// GET /api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download?filename=.
// filename is the stem without extension (empty: the platform's default,
// "dashboard"). A job still rendering gives ErrConflict, a failed one
// ErrUnprocessable, an expired one ErrNotFound. Close the file's Body.
func (c *Client) DownloadDashboardExport(ctx context.Context, deploymentID int64, jobID, filename string) (*ExportFile, error) {
	probs := checkJob(deploymentID, jobID)
	if strings.ContainsAny(filename, "/\\") || strings.ContainsFunc(filename, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		probs = append(probs, FieldError{Field: "filename", Rule: "must be a file name stem without directories or control characters"})
	}
	if err := validationErr("dashboard-export-download", probs, nil); err != nil {
		return nil, err
	}
	q := url.Values{}
	if filename != "" {
		q.Set("filename", filename)
	}
	p := withQuery(exportsPath(deploymentID)+"/"+url.PathEscape(jobID)+"/download", q)
	hreq, err := c.NewRequest(ctx, http.MethodGet, p, nil)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", "application/pdf, image/png, application/json;q=0.5")
	resp, _, err := c.send(hreq, call{template: "/api/v1/deployments/{deploymentId}/dashboard-exports/{jobId}/download", stream: true})
	if err != nil {
		return nil, err
	}
	if err := c.rejectDocument(hreq, resp); err != nil {
		return nil, err
	}
	f := &ExportFile{
		Body:        resp.Body,
		ContentType: resp.Header.Get("Content-Type"),
		Filename:    attachmentName(resp.Header.Get("Content-Disposition")),
	}
	if f.Filename == "" {
		stem := filename
		if stem == "" {
			stem = "dashboard"
		}
		mt, _, _ := mime.ParseMediaType(f.ContentType)
		switch mt {
		case "application/pdf":
			stem += ".pdf"
		case "image/png":
			stem += ".png"
		}
		f.Filename = stem
	}
	return f, nil
}

// WaitDashboardExport polls an export job until it completes or fails,
// with a growing delay (see WithExportPollInterval).
//
// A completed job returns its status. A failed job returns its status and
// an *ExportFailedError carrying the platform's reason. A job that reaches
// job.ExpiresAt first, or that the platform no longer knows (404), gives an
// error matching ErrExportExpired. A cancelled ctx stops the wait at once.
func (c *Client) WaitDashboardExport(ctx context.Context, deploymentID int64, job *ExportJob) (*ExportStatus, error) {
	var jobID string
	if job != nil {
		jobID = job.JobID
	}
	if err := validationErr("dashboard-export-status", checkJob(deploymentID, jobID), nil); err != nil {
		return nil, err
	}
	delay := c.pollMin
	for {
		if !job.ExpiresAt.IsZero() && !c.now().Before(job.ExpiresAt) {
			return nil, fmt.Errorf("%w: job %s passed its expiry %s before completing; submit it again", ErrExportExpired, jobID, job.ExpiresAt.Format(time.RFC3339))
		}
		st, err := c.DashboardExportStatus(ctx, deploymentID, jobID)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, fmt.Errorf("%w: the platform no longer knows job %s: %w", ErrExportExpired, jobID, err)
			}
			return nil, err
		}
		switch st.Status {
		case ExportCompleted:
			return st, nil
		case ExportFailed:
			return st, &ExportFailedError{JobID: jobID, Reason: st.Error}
		}
		wait := delay
		if !job.ExpiresAt.IsZero() {
			if left := job.ExpiresAt.Sub(c.now()); left < wait {
				wait = max(left, 0)
			}
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("embedkit: waiting for dashboard export %s: %w", jobID, err)
		}
		delay = min(delay*3/2+1, c.pollMax)
	}
}
