package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// FS holds app.css, app.js, react.js and module.js at its root.
//
//go:embed app.css app.js react.js module.js
var FS embed.FS

// Prefix is the URL path the handler is mounted at.
const Prefix = "/static/"

// contentTypes are the media types of the served files, set explicitly
// so the system's MIME tables cannot change them.
var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
}

// Handler serves the files of FS under Prefix (/static/app.css,
// /static/app.js, /static/react.js) for GET and HEAD, with their content type,
// "Cache-Control: public, max-age=3600", "X-Content-Type-Options:
// nosniff" and an ETag of their content, answering If-None-Match with
// 304. Mount it at Prefix without stripping the prefix. Any other path,
// including Prefix itself and anything that names a directory or leaves
// it, is 404: there are no directory listings.
func Handler() http.Handler {
	etags := make(map[string]string)
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		panic("static: reading the embedded files: " + err.Error())
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(FS, e.Name())
		if err != nil {
			panic("static: reading " + e.Name() + ": " + err.Error())
		}
		sum := sha256.Sum256(b)
		etags[e.Name()] = `"` + hex.EncodeToString(sum[:8]) + `"`
	}
	files := http.StripPrefix(strings.TrimSuffix(Prefix, "/"), http.FileServerFS(FS))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, Prefix)
		etag, known := etags[name]
		if !ok || !known || path.Clean("/"+name) != "/"+name {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", contentTypes[path.Ext(name)])
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("ETag", etag)
		files.ServeHTTP(w, r)
	})
}
