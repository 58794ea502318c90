package static

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandlerServesFiles(t *testing.T) {
	h := Handler()
	tests := []struct {
		name, path, contentType, contains string
	}{
		{"stylesheet", "/static/app.css", "text/css; charset=utf-8", "prefers-color-scheme"},
		{"script", "/static/app.js", "text/javascript; charset=utf-8", `"embedkit:" + name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := fs.ReadFile(FS, strings.TrimPrefix(tt.path, Prefix))
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			for k, v := range map[string]string{
				"Content-Type":           tt.contentType,
				"Cache-Control":          "public, max-age=3600",
				"X-Content-Type-Options": "nosniff",
			} {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if rec.Body.String() != string(want) {
				t.Errorf("body differs from the embedded file (%d bytes, want %d)", rec.Body.Len(), len(want))
			}
			if !strings.Contains(rec.Body.String(), tt.contains) {
				t.Errorf("body lacks %q", tt.contains)
			}

			etag := rec.Header().Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			req.Header.Set("If-None-Match", etag)
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusNotModified {
				t.Errorf("If-None-Match: status = %d, want 304", rec.Code)
			}

			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, tt.path, nil))
			if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
				t.Errorf("HEAD: status = %d, body %d bytes; want 200 and no body", rec.Code, rec.Body.Len())
			}
		})
	}
}

func TestHandlerRefuses(t *testing.T) {
	h := Handler()
	tests := []struct {
		name, method, target string
		want                 int
	}{
		{"prefix itself", http.MethodGet, "/static/", http.StatusNotFound},
		{"prefix without slash", http.MethodGet, "/static", http.StatusNotFound},
		{"root", http.MethodGet, "/", http.StatusNotFound},
		{"missing file", http.MethodGet, "/static/missing.css", http.StatusNotFound},
		{"not under prefix", http.MethodGet, "/app.css", http.StatusNotFound},
		{"dot segment", http.MethodGet, "/static/./app.css", http.StatusNotFound},
		{"traversal", http.MethodGet, "/static/../static/app.css", http.StatusNotFound},
		{"encoded traversal", http.MethodGet, "/static/%2e%2e/go.mod", http.StatusNotFound},
		{"encoded slash", http.MethodGet, "/static/..%2fgo.mod", http.StatusNotFound},
		{"deep traversal", http.MethodGet, "/static/../../../../etc/passwd", http.StatusNotFound},
		{"trailing slash", http.MethodGet, "/static/app.css/", http.StatusNotFound},
		{"double slash", http.MethodGet, "/static//app.css", http.StatusNotFound},
		{"index", http.MethodGet, "/static/index.html", http.StatusNotFound},
		{"post", http.MethodPost, "/static/app.css", http.StatusMethodNotAllowed},
		{"delete", http.MethodDelete, "/static/app.js", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.target, nil))
			if rec.Code != tt.want {
				t.Fatalf("status = %d, want %d", rec.Code, tt.want)
			}
			if body := rec.Body.String(); strings.Contains(body, "<a href") || strings.Contains(body, "module ") {
				t.Errorf("body leaks a listing or a file: %q", body)
			}
			if tt.want == http.StatusMethodNotAllowed && rec.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q, want GET, HEAD", rec.Header().Get("Allow"))
			}
		})
	}
}

func TestHandlerThroughServeMux(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle(Prefix, Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, p := range []string{"/static/app.css", "/static/app.js"} {
		res, err := srv.Client().Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status = %d, want 200", p, res.StatusCode)
		}
	}
	for _, p := range []string{"/static/", "/static/../go.mod", "/static/%2e%2e/go.mod"} {
		res, err := srv.Client().Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status = %d, want 404", p, res.StatusCode)
		}
	}
}
