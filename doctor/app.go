package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/embedkit/embedkit/internal/loopbackhost"
)

// The doctor reaches the app it is for in two ways, neither needing glue:
// ExitIfRequested in the app's main, and Handler on its loopback or admin
// mux. Both run Run on the Config the app gives middleware.New.

// Environment variables read by ExitIfRequested.
const (
	// EnvDoctor asks ExitIfRequested to run the doctor: "1" or "text"
	// for the text report, "json" for JSON.
	EnvDoctor = "EMBEDKIT_DOCTOR"
	// EnvDoctorHostURL is the host page to check (Config.HostURL), when
	// Config.HostURL is empty.
	EnvDoctorHostURL = "EMBEDKIT_DOCTOR_HOST_URL"
	// EnvDoctorHostCookie is the Cookie header of a signed-in test user
	// of the host app, sent with the GET of the host page only
	// (Config.HostHeader), when Config.HostHeader has no Cookie: a page
	// behind a sign-in can then be checked. It is a secret, so it is read
	// from the environment only, by ExitIfRequested and by the embedkit
	// doctor command alike.
	EnvDoctorHostCookie = "EMBEDKIT_DOCTOR_HOST_COOKIE"
)

// DefaultTimeout bounds one run of ExitIfRequested or Handler.
const DefaultTimeout = 30 * time.Second

// ExitIfRequested runs the doctor on cfg and exits the process when the
// environment asks for it (EMBEDKIT_DOCTOR=1, or =json for a JSON
// report), and returns at once otherwise. Call it in the app's main once
// the middleware.Config is built, before serving:
//
//	doctor.ExitIfRequested(doctor.Config{Name: "billing", Kit: cfg})
//
// Then "EMBEDKIT_DOCTOR=1 ./billing" checks billing's own Config and
// exits: status 0 when no check failed, 1 when one did, 2 when the doctor
// could not run. EMBEDKIT_DOCTOR_HOST_URL names a page of a running
// instance that embeds, when cfg.HostURL is empty, and
// EMBEDKIT_DOCTOR_HOST_COOKIE the Cookie header of a signed-in test user
// to fetch it with, when cfg.HostHeader has none (the embedkit doctor
// command reads the same two). The report goes to standard output.
func ExitIfRequested(cfg Config) {
	if code, ran := runRequested(context.Background(), cfg, os.Getenv, os.Stdout, os.Stderr); ran {
		os.Exit(code)
	}
}

// runRequested is ExitIfRequested without the exit: it reports whether
// the environment asked for the doctor and, if so, the exit status.
func runRequested(ctx context.Context, cfg Config, getenv func(string) string, stdout, stderr io.Writer) (code int, ran bool) {
	mode := strings.ToLower(strings.TrimSpace(getenv(EnvDoctor)))
	switch mode {
	case "", "0", "false":
		return 0, false
	case "1", "true", "text", "json":
	default:
		fmt.Fprintf(stderr, "doctor: %s=%q: the value must be 1, text or json\n", EnvDoctor, mode)
		return 2, true
	}
	if cfg.HostURL == "" {
		cfg.HostURL = getenv(EnvDoctorHostURL)
	}
	if c := getenv(EnvDoctorHostCookie); c != "" && cfg.HostHeader.Get("Cookie") == "" {
		h := cfg.HostHeader.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set("Cookie", c)
		cfg.HostHeader = h
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2, true
	}
	if mode == "json" {
		err = writeJSON(stdout, rep)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "doctor: write the report: %v\n", err)
		return 2, true
	}
	if rep.Failed() {
		return 1, true
	}
	return 0, true
}

func writeJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// Handler returns a handler that runs the doctor on cfg for each GET and
// answers the report: JSON when the request asks for it (Accept:
// application/json or ?format=json), text otherwise. Mount it on the
// app's loopback or admin mux, beside pprof or metrics:
//
//	admin.Handle("GET /debug/embedkit/doctor", doctor.Handler(doctor.Config{Name: "billing", Kit: cfg}))
//
// and read it with "embedkit doctor -app http://127.0.0.1:6060/debug/embedkit/doctor"
// or curl. A run mints and revokes probe sessions on the platform, so the
// handler answers loopback clients only, and only to a Host that names
// this machine or the address it was reached on, as a defence against DNS
// rebinding (403 otherwise). It refuses a request a web page sent (403),
// as the emulator's control API does: one whose fetch metadata says
// another origin sent it (Sec-Fetch-Site other than none or same-origin),
// or, from a browser without fetch metadata, whose Origin or Referer names
// another origin. Any page open in a browser on this machine could
// otherwise start runs with an <img>, each minting and revoking probe
// sessions. The command, curl and an address typed in the browser send
// none of these and are answered. It answers one run at a time (503 with
// Retry-After while one is under way). The status is 200
// whatever the checks found; the report says which failed. The request
// neither chooses what is checked nor where the doctor connects: that is
// cfg's alone.
func Handler(cfg Config) http.Handler {
	var running sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "doctor: use GET", http.StatusMethodNotAllowed)
			return
		}
		if !fromLoopback(r) {
			http.Error(w, "doctor: the doctor answers loopback clients only", http.StatusForbidden)
			return
		}
		if !loopbackhost.Allowed(r, nil) {
			// A web page that rebinds its own name to 127.0.0.1 reaches
			// this listener from the viewer's browser, but sends its own
			// name in Host.
			http.Error(w, "doctor: Host refused: the doctor answers only to a loopback address, localhost or the address it was reached on (a defence against DNS rebinding)", http.StatusForbidden)
			return
		}
		if from, ok := sentByOtherOrigin(r); ok {
			http.Error(w, "doctor: a request sent by a web page ("+from+") refused: open the doctor's address directly, or use the command or curl", http.StatusForbidden)
			return
		}
		if !running.TryLock() {
			w.Header().Set("Retry-After", "5")
			http.Error(w, "doctor: a check is under way; try again when it ends", http.StatusServiceUnavailable)
			return
		}
		defer running.Unlock()
		ctx, cancel := context.WithTimeout(r.Context(), DefaultTimeout)
		defer cancel()
		rep, err := Run(ctx, cfg)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if r.URL.Query().Get("format") == "json" || strings.Contains(r.Header.Get("Accept"), "application/json") {
			w.Header().Set("Content-Type", "application/json")
			_ = writeJSON(w, rep)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_ = rep.WriteText(w)
	})
}

// fromLoopback reports whether r's peer is a loopback address.
func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sentByOtherOrigin reports whether a web page of another origin sent r,
// and what said so: its fetch metadata (Sec-Fetch-Site other than none
// or same-origin), or, from a browser that sends none, an Origin or
// Referer that names an origin other than http(s)://Host.
func sentByOtherOrigin(r *http.Request) (string, bool) {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "none", "same-origin":
		return "", false
	case "":
	default:
		return "Sec-Fetch-Site: " + site, true
	}
	own := func(o string) bool {
		return strings.EqualFold(o, "http://"+r.Host) || strings.EqualFold(o, "https://"+r.Host)
	}
	for _, o := range r.Header.Values("Origin") {
		if !own(o) {
			return "Origin", true
		}
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		u, err := url.Parse(ref)
		if err != nil || !own(u.Scheme+"://"+u.Host) {
			return "Referer", true
		}
	}
	return "", false
}
