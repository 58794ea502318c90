package middleware

import (
	"log/slog"
	"net/http"
	"reflect"
)

// PageFrame is the iframe of a page whose start is sent before its
// session is minted: Kit.PageFrame checks everything that can refuse the
// page while nothing of it is written, and URL, which the page's template
// calls where the iframe's src goes, sends what the page has written so
// far, then mints, and returns the platform iframe URL. The browser reads
// the page's head (its styles, its scripts, what comes before the frame)
// during the mint instead of after it.
//
// A PageFrame belongs to one request: call URL from the goroutine that
// writes the page, while the handler runs. It is not safe for concurrent
// use.
type PageFrame struct {
	k *Kit
	w http.ResponseWriter
	// src is the iframe src once decided: at once for a HEAD, a page
	// reached from another site, or a mint that could not wait; else by
	// URL.
	src     string
	decided bool
	pending pendingMint
	// fallback is the frame endpoint's URL of the target, the src when
	// the mint fails after the page's start was sent.
	fallback string
}

// PageFrame is FrameURL for a page that sends its start before it mints:
// the README's default, measured at parity with a hand-written page that
// does the same and faster than the same page around FrameURL
// (docs/performance.md). It checks the target, reads
// the viewer, runs the Policy and takes the viewer's mint limit now, and
// marks the response Cache-Control: no-store, so its errors are those of
// FrameURL and are answered with ServeError before anything of the page
// is written (a signed-out viewer still gets the 303 to Config.Paths.Login,
// a refused viewer 403, the mint limit 429). It returns the page's frame;
// execute the page's template with it and write the iframe's src as
// {{.Frame.URL}} (html/template), or call URL where a templ component
// writes it:
//
//	frame, err := kit.PageFrame(w, r, sales)
//	if err != nil {
//		kit.ServeError(w, r, err)
//		return
//	}
//	_ = page.Execute(w, map[string]any{"Frame": frame})
//
// URL flushes the response (http.ResponseController), so the browser gets
// the status, the headers and the page up to the iframe, and only then
// calls the platform. Content-Type is set to text/html; charset=utf-8 if
// the handler set none. After the flush the status can no longer change:
// when the platform call or the store fails, URL logs it and returns the
// frame endpoint's URL of t instead (FrameSrc of the name t is registered
// under, mounted with FrameHandler at Config.Paths.Frame). The iframe's
// load then mints once more, which is the retry: the viewer sees the
// dashboard if the platform is back, or else the frame endpoint's answer
// (Config.ErrorHandler, with the status of ErrorStatus and Retry-After) in
// the frame, and the host script reports the frame as load-failed with its
// reason. The page itself is a 200.
//
// The mint waits for URL only when that fallback exists and the store
// writes nothing into the response: for a store that keeps ids in a
// cookie (RequestScoped), or a target the frame endpoint does not serve as
// given (a copy changed for the request, a RouteScoped or unregistered
// target), PageFrame mints at once, as FrameURL does, and URL returns that
// URL without flushing. A HEAD request mints nothing and URL returns "";
// a page reached from another site mints nothing either, and URL returns
// what FrameURL returns for it (or PageFrame its error). A page executed
// into a buffer and copied to w afterwards works, but sends nothing early
// (URL's flush then sends the headers alone); so does a templ component,
// which buffers its output, unless what comes before the iframe is inside
// @templ.Flush() { ... }. A PageFrame whose URL is never called mints
// nothing (the mint limit was taken all the same).
func (k *Kit) PageFrame(w http.ResponseWriter, r *http.Request, t Target) (*PageFrame, error) {
	v, src, decided, err := k.pageStart(r, t)
	if err != nil {
		return nil, err
	}
	f := &PageFrame{k: k, w: w}
	name, fallback, endpoint := k.endpointFrame(t)
	_, scoped := k.cfg.Store.(RequestScoped)
	switch {
	case decided:
		f.src, f.decided = src, true
	case scoped || !endpoint || w == nil:
		// The store writes the response's header, or no fallback could
		// stand in for a failed mint: mint before the page is written.
		fr, err := k.mint(w, r, v, string(t.Kind), t, "", "", false)
		if err != nil {
			return nil, err
		}
		f.src, f.decided = fr.URL, true
	default:
		if err := k.startMint(&f.pending, w, r, v, name, t, "", "", false); err != nil {
			return nil, err
		}
		f.fallback = fallback
	}
	if w != nil {
		// The page will hold a single-use id: no cache may keep it.
		w.Header().Set("Cache-Control", "no-store")
	}
	return f, nil
}

// URL returns the iframe src of the page's frame. The first call sends
// what the page has written so far and then mints (see Kit.PageFrame);
// later calls return the same URL.
func (f *PageFrame) URL() string {
	if f == nil {
		return ""
	}
	if f.decided {
		return f.src
	}
	f.decided = true
	h := f.w.Header()
	if h.Get("Content-Type") == "" {
		// net/http would sniff the type from what was written so far,
		// which may be nothing.
		h.Set("Content-Type", "text/html; charset=utf-8")
	}
	// A writer that cannot flush sends the page when the handler returns,
	// as a FrameURL page is sent.
	_ = http.NewResponseController(f.w).Flush()
	fr, err := f.pending.send()
	if err != nil {
		f.k.cfg.Logger.LogAttrs(f.pending.r.Context(), slog.LevelWarn, "embedkit: the page was sent before its mint failed; its frame loads the frame endpoint, which mints again",
			slog.String("target", f.pending.name), slog.String("outcome", string(OutcomeOf(err))))
		f.src = f.fallback
		return f.src
	}
	f.src = fr.URL
	return f.src
}

// endpointFrame finds the name under which the frame endpoint serves t as
// given, and its frame endpoint URL; ok is false when it does not (a copy
// changed for the request, a RouteScoped or unregistered target).
func (k *Kit) endpointFrame(t Target) (name, src string, ok bool) {
	if t.Locale != "" {
		if l, found := k.locales.match(t.Locale); found {
			t.Locale = l
		}
	}
	name, reg, found := k.resolve(t.canonicalRef())
	if !found || !reflect.DeepEqual(reg, t) {
		return "", "", false
	}
	return name, k.FrameSrc(name), true
}
