package middleware

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ../internal/hostbuild/generate -root ..

// HostScriptVersion is the version of the host script the kit serves, and
// of the npm package @embedkit/host (hostpage/package.json) built from the
// same source. A page that imports a package of another version than the
// kit serving it is warned (a console warning and a version-mismatch
// event).
const HostScriptVersion = "0.1.0"

// HostScriptVersionHeader is the response header of the frame endpoint's
// answers that carries HostScriptVersion; the host script reads it when
// it probes the endpoint with HEAD.
const HostScriptVersionHeader = "Embedkit-Version"

// hostScriptSource is generated from hostpage/src by internal/hostbuild
// (go generate ./middleware); scripts/test.sh fails when it is stale.
//
//go:embed hostscript.js
var hostScriptSource []byte

// hostScriptPlaceholder is replaced with the kit's settings when served.
var hostScriptPlaceholder = []byte("/*EMBEDKIT_CONFIG*/ {}")

//go:embed hostscript.d.ts
var hostScriptTypes []byte

// hostScriptTypesFile serves hostScriptTypes.
var hostScriptTypesFile = newStaticFile(hostScriptTypes, "application/typescript; charset=utf-8")

// HostSettings are the settings the host script needs: what the kit
// fills into the script it serves, and what a page that imports the npm
// package @embedkit/host passes to its configure(settings), or renders as
// <meta name="embedkit" content="<this as JSON>"> for the module to read.
// None of it is secret.
type HostSettings struct {
	// PlatformOrigin is the platform's origin: the only origin the script
	// accepts messages from and posts actions to.
	PlatformOrigin string `json:"platformOrigin"`
	// SessionURL is Config.Paths.Session.
	SessionURL string `json:"sessionURL"`
	// FramePrefix is Config.Paths.Frame.
	FramePrefix string `json:"framePrefix"`
	// Version is HostScriptVersion.
	Version string `json:"version"`
	// Targets are the registered targets whose frames may move between
	// one another in place (HostTarget), by name and by frame path
	// (dashboard/{publicId}): dashboards that are not
	// RouteScoped and have no SecurityContext of their own, under a Policy
	// without Customize. A frame moves in place to another target only
	// when both are listed with equal Grant and Pinned tags; any other
	// change of target loads a new frame, which mints.
	Targets map[string]HostTarget `json:"targets,omitempty"`
}

// HostSettings returns the settings of the kit's host script, for a page
// that imports the npm package instead of loading Kit.HostScript:
//
//	b, _ := json.Marshal(kit.HostSettings())
//	// html/template: <meta name="embedkit" content="{{.HostSettingsJSON}}">
func (k *Kit) HostSettings() HostSettings {
	return HostSettings{
		PlatformOrigin: k.platformOrigin,
		SessionURL:     k.cfg.Paths.Session,
		FramePrefix:    k.cfg.Paths.Frame,
		Version:        HostScriptVersion,
		Targets:        maps.Clone(k.hostTargets),
	}
}

// renderHostScript fills in the host script's settings and returns it
// with its ETag.
func renderHostScript(s HostSettings) *staticFile {
	cfg, err := json.Marshal(s)
	if err != nil {
		panic("middleware: encoding the host script settings: " + err.Error())
	}
	return newStaticFile(bytes.Replace(hostScriptSource, hostScriptPlaceholder, cfg, 1), "text/javascript; charset=utf-8")
}

// HostScript serves the host script, a small dependency-free JavaScript
// file for the host's pages (mount it at, for example, /embed/host.js and
// load it with <script src="/embed/host.js" defer>). It carries the
// platform origin, Config.Paths.Session and Config.Paths.Frame, and speaks
// the platform's documented postMessage protocol only: it accepts a
// message from the platform origin with source "cube-embed" from one of
// the page's managed frames (<iframe data-embedkit> and <embedkit-frame>),
// and posts actions to the platform origin, never "*".
//
// window.embedkit.frame(el) returns a frame's handle: on(name, fn) and
// off(name, fn) for the documented events (ready, view, navigate,
// dashboard-loaded, download, drilldown, ai-query, error) and the kit's
// own (session-renewed, session-ended, renew-failed); setLocale,
// setTimezone, setTheme, setColorScheme, setFilter(member, value),
// navigate(path) and refresh() send the documented actions to that frame;
// reload() mints it again; show(target) switches it to another target, in
// place (cube:action:navigate, no new session) when HostSettings.Targets
// say both mint alike, else as a new frame. Every event also fires as a DOM CustomEvent
// "embedkit:<name>" on the iframe. Page-wide setLocale, setTimezone,
// setTheme, setColorScheme, setFilter and refresh reach every frame.
// Settings made through the script are sent again whenever a frame
// reports ready, so a reloaded frame keeps them. <embedkit-frame
// target="sales"> builds the iframe (src Config.Paths.Frame + target) and
// offers the handle's methods itself.
//
// The script keeps a frame's session alive with the documented messages
// only. Where the platform sends cube:event:session-expiring or
// -expired, it renews in place: a new session from SessionHandler, posted
// to the frame as cube:action:set-session, so the frame keeps its
// document. Elsewhere it loads the frame again through its frame endpoint
// (which mints) 23 hours minus 5 minutes after the frame's load started;
// also after a fatal error event other than a render failure, and on
// reload(), first asking the endpoint with HEAD whether the viewer is
// still signed in (401: session-ended). Other failures are retried with
// capped, jittered backoff, one renewal per frame at a time; a frame
// whose src is the platform's own URL is loaded again through
// SessionHandler instead. data-embedkit-fit sizes a frame
// to its box or the window. HostScriptTypes serves its TypeScript
// declarations.
//
// Caching: requested at the path HostScriptSrc gives (the mount path with
// the script's content hash, ?v=...), the script is served immutable for
// a year, so a page view costs no request for it once cached; requested
// at any other URL it is served no-cache, with an ETag. It is sent
// gzip-compressed to a client that accepts gzip.
func (k *Kit) HostScript() http.Handler {
	return k.hostJS.handler()
}

// HostScriptSrc returns the src for a <script> of the host script mounted
// at path: path with the script's content hash (path?v=<hash>). The
// script changes only with the kit and its settings, so the URL does, and
// HostScript serves it immutable: browsers keep it for a year and ask for
// it again only when it changes.
//
//	<script src="{{.HostScriptSrc}}" defer></script>  // kit.HostScriptSrc("/embed/host.js")
func (k *Kit) HostScriptSrc(path string) string {
	return path + "?v=" + k.hostJS.hash
}

// staticFile is a file served from memory, with its gzip form, its ETags
// and its content hash.
type staticFile struct {
	body       []byte
	gz         func() []byte // the gzip form, compressed at its first use
	tag, gzTag string
	hash       string // hex, for HostScriptSrc's ?v=
	ctype      string
}

// newStaticFile hashes body; it is compressed only once a client asks for
// the gzip form, so New and the package's start pay nothing for a file
// never served.
func newStaticFile(body []byte, ctype string) *staticFile {
	sum := sha256.Sum256(body)
	f := &staticFile{body: body, ctype: ctype, hash: hex.EncodeToString(sum[:8])}
	f.tag = `"` + f.hash + `"`
	f.gzTag = `"` + f.hash + `-gz"`
	f.gz = sync.OnceValue(func() []byte { return gzipped(body) })
	return f
}

// gzipped is body compressed with gzip at its best compression.
func gzipped(body []byte) []byte {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err == nil {
		_, err = zw.Write(body)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		panic("middleware: compressing a static file: " + err.Error()) // writes to memory do not fail
	}
	return b.Bytes()
}

// acceptsGzip reports whether the Accept-Encoding of r allows gzip
// (listed, or *, with a q-value above 0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "*" {
				continue
			}
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

// handler serves f for GET and HEAD: immutable when the request's ?v= is
// f's hash, no-cache with an ETag (304 on a match) otherwise; gzip to a
// client that accepts it.
func (f *staticFile) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", f.ctype)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Vary", "Accept-Encoding")
		if r.URL.Query().Get("v") == f.hash {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		body, tag := f.body, f.tag
		if acceptsGzip(r) {
			body, tag = f.gz(), f.gzTag
			h.Set("Content-Encoding", "gzip")
		}
		h.Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}

// HostScriptTypes serves the TypeScript declarations of the host script's
// API (mount it beside the script, for example at /embed/host.d.ts), for
// host pages written in TypeScript:
//
//	/// <reference path="./host.d.ts" />
//	embedkit.frame("#sales").on("drilldown", (e) => show(e.payload.member, e.payload.value));
func (k *Kit) HostScriptTypes() http.Handler {
	return hostScriptTypesFile.handler()
}
