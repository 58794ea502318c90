package middleware

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestSecurityHeaders(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	tests := []struct {
		name  string
		opts  HeaderOptions
		outer string // a policy an outer handler set
		xfo   string // X-Frame-Options an outer handler set
		want  string
	}{
		{"alone", HeaderOptions{}, "", "",
			"default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'"},
		{"base with frame-src", HeaderOptions{BaseCSP: "script-src 'self' https://cdn.example; frame-src https://video.example"}, "", "",
			"script-src 'self' https://cdn.example; frame-src https://video.example 'self' https://acme.example.com; default-src 'self'; frame-ancestors 'self'"},
		{"base default-src carried into frame-src", HeaderOptions{BaseCSP: "default-src 'self' https://cdn.example; frame-ancestors 'none'"}, "", "",
			"default-src 'self' https://cdn.example; frame-ancestors 'none'; frame-src 'self' https://cdn.example https://acme.example.com"},
		{"none replaced", HeaderOptions{BaseCSP: "default-src 'none'"}, "", "",
			"default-src 'none'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'"},
		{"extra frame source", HeaderOptions{FrameSources: []string{"https://maps.example"}}, "", "",
			"default-src 'self'; frame-src 'self' https://acme.example.com https://maps.example; frame-ancestors 'self'"},
		{"outer policy composed", HeaderOptions{}, "img-src *; child-src https://old.example", "",
			"img-src *; child-src https://old.example; default-src 'self'; frame-src https://old.example 'self' https://acme.example.com; frame-ancestors 'self'"},
		{"X-Frame-Options DENY", HeaderOptions{}, "", "DENY",
			"default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'none'"},
		{"X-Frame-Options DENY, outer policy", HeaderOptions{}, "img-src *", "DENY",
			"img-src *; default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'none'"},
		{"X-Frame-Options DENY, base with frame-ancestors", HeaderOptions{BaseCSP: "default-src 'self'; frame-ancestors 'self' https://partner.example"}, "", "DENY",
			"default-src 'self'; frame-ancestors 'self' https://partner.example; frame-src 'self' https://acme.example.com"},
		{"X-Frame-Options DENY, base of two policies", HeaderOptions{BaseCSP: "script-src 'self', img-src *"}, "", "DENY",
			"script-src 'self'; default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'none', img-src *"},
		{"X-Frame-Options SAMEORIGIN", HeaderOptions{}, "", "SAMEORIGIN",
			"default-src 'self'; frame-src 'self' https://acme.example.com; frame-ancestors 'self'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := SecurityHeaders("https://acme.example.com/some/path", tt.opts)(ok)
			w := httptest.NewRecorder()
			if tt.outer != "" {
				w.Header().Set("Content-Security-Policy", tt.outer)
			}
			if tt.xfo != "" {
				w.Header().Set("X-Frame-Options", tt.xfo)
			}
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			if got := w.Header().Get("Content-Security-Policy"); got != tt.want {
				t.Errorf("CSP\n got %s\nwant %s", got, tt.want)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "strict-origin-when-cross-origin" {
				t.Errorf("headers %v", w.Header())
			}
			if got := w.Header().Values("X-Frame-Options"); !slices.Equal(got, nonEmpty(tt.xfo)) {
				t.Errorf("X-Frame-Options %q, want %q (the kit sets none and keeps the page's)", got, nonEmpty(tt.xfo))
			}
		})
	}
}

func TestSecurityHeadersPanicsOnBadOrigin(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a bad origin")
		}
	}()
	SecurityHeaders("acme.example.com", HeaderOptions{})
}

// TestSecurityHeadersKeepTheAppsPolicy: a page whose handler sends a
// policy of its own keeps it, with the kit's frame sources merged in,
// instead of losing it to the kit's or having both apply (two policies
// both bind, so the kit's default-src 'self' would block the page's
// inline code). A page whose policies say nothing of frame-ancestors gets
// the kit's frame-ancestors 'self' (or 'none' under X-Frame-Options:
// DENY), so no other site can frame it; one that does say keeps its own.
// The kit sets no X-Frame-Options and keeps the page's.
func TestSecurityHeadersKeepTheAppsPolicy(t *testing.T) {
	const platform = "https://acme.example.com"
	tests := []struct {
		name    string
		set     func(http.Header)
		want    []string
		wantXFO string
	}{
		{"Set, with default-src", func(h http.Header) {
			h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'")
		}, []string{"default-src 'self'; script-src 'self' 'unsafe-inline'; frame-src 'self' " + platform + "; frame-ancestors 'self'"}, ""},
		{"Add, with frame-src", func(h http.Header) {
			h.Add("Content-Security-Policy", "script-src 'self' 'unsafe-inline'; frame-src https://video.example")
		}, []string{"script-src 'self' 'unsafe-inline'; frame-src https://video.example 'self' " + platform + "; frame-ancestors 'self'"}, ""},
		{"a policy that does not limit frames", func(h http.Header) {
			h.Set("Content-Security-Policy", "script-src 'self' 'unsafe-inline';")
		}, []string{"script-src 'self' 'unsafe-inline'; frame-ancestors 'self'"}, ""},
		{"its own frame-ancestors, a partner", func(h http.Header) {
			h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'self' https://partner.example")
		}, []string{"default-src 'self'; frame-ancestors 'self' https://partner.example; frame-src 'self' " + platform}, ""},
		{"its own frame-ancestors, upper case", func(h http.Header) {
			h.Set("Content-Security-Policy", "script-src 'self'; Frame-Ancestors *")
		}, []string{"script-src 'self'; Frame-Ancestors *"}, ""},
		{"a frame-ancestors browsers ignore (U+00A0 after the name)", func(h http.Header) {
			h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors\u00a0https://partner.example")
		}, []string{"default-src 'self'; frame-ancestors\u00a0https://partner.example; frame-src 'self' " + platform + "; frame-ancestors 'self'"}, ""},
		{"two of the app's", func(h http.Header) {
			h.Set("Content-Security-Policy", "img-src *")
			h.Add("Content-Security-Policy", "default-src 'self' 'unsafe-inline'")
		}, []string{"img-src *; frame-ancestors 'self'", "default-src 'self' 'unsafe-inline'; frame-src 'self' 'unsafe-inline' " + platform}, ""},
		{"two of the app's, the second with frame-ancestors", func(h http.Header) {
			h.Set("Content-Security-Policy", "img-src *")
			h.Add("Content-Security-Policy", "default-src 'self'; frame-ancestors https://partner.example")
		}, []string{"img-src *", "default-src 'self'; frame-ancestors https://partner.example; frame-src 'self' " + platform}, ""},
		{"one header value of two policies (a comma)", func(h http.Header) {
			h.Set("Content-Security-Policy", "default-src 'self', script-src 'self'")
		}, []string{"default-src 'self'; frame-src 'self' " + platform + ", script-src 'self'; frame-ancestors 'self'"}, ""},
		{"its own X-Frame-Options SAMEORIGIN", func(h http.Header) {
			h.Set("Content-Security-Policy", "default-src 'self'")
			h.Set("X-Frame-Options", "SAMEORIGIN")
		}, []string{"default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'self'"}, "SAMEORIGIN"},
		{"its own X-Frame-Options DENY", func(h http.Header) {
			h.Set("Content-Security-Policy", "default-src 'self'")
			h.Set("X-Frame-Options", "DENY")
		}, []string{"default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'none'"}, "DENY"},
		{"X-Frame-Options DENY and its own frame-ancestors", func(h http.Header) {
			h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors https://partner.example")
			h.Set("X-Frame-Options", "DENY")
		}, []string{"default-src 'self'; frame-ancestors https://partner.example; frame-src 'self' " + platform}, "DENY"},
		{"none of its own", func(http.Header) {},
			[]string{"default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'self'"}, ""},
		{"none of its own, X-Frame-Options DENY", func(h http.Header) {
			h.Set("X-Frame-Options", "deny")
		}, []string{"default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'none'"}, "deny"},
	}
	for _, tt := range tests {
		for _, write := range []string{"WriteHeader", "Write", "nothing"} {
			t.Run(tt.name+", "+write, func(t *testing.T) {
				page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					tt.set(w.Header())
					switch write {
					case "WriteHeader":
						w.WriteHeader(http.StatusOK)
					case "Write":
						w.Write([]byte("<p>hello</p>"))
					}
				})
				srv := httptest.NewServer(SecurityHeaders(platform, HeaderOptions{Logger: slog.New(slog.DiscardHandler)})(page))
				defer srv.Close()
				resp, err := http.Get(srv.URL)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got := resp.Header.Values("Content-Security-Policy"); !slices.Equal(got, tt.want) {
					t.Errorf("CSP\n got %q\nwant %q", got, tt.want)
				}
				if got := resp.Header.Values("X-Frame-Options"); !slices.Equal(got, nonEmpty(tt.wantXFO)) {
					t.Errorf("X-Frame-Options %q, want %q", got, nonEmpty(tt.wantXFO))
				}
			})
		}
	}
}

// nonEmpty is []string{s}, or nil for "".
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// TestSecurityHeadersWarnOnInlineCode: a page without a policy of its own
// whose inline script or style the kit's policy blocks is named in one
// warning that points at HeaderOptions.BaseCSP; a page without inline
// code, one with a policy of its own, a BaseCSP, and a second such page
// log nothing.
func TestSecurityHeadersWarnOnInlineCode(t *testing.T) {
	tests := []struct {
		name  string
		opts  HeaderOptions
		ct    string // Content-Type the page sets; "" lets net/http sniff
		own   string // the page's own policy
		body  []string
		warns string // in the warning; "" for none
	}{
		{"inline script", HeaderOptions{}, "text/html; charset=utf-8", "", []string{`<html><script>document.title = "x"</script>`}, "inline script"},
		{"inline style, sniffed HTML", HeaderOptions{}, "", "", []string{`<!doctype html><p style="color: red">hi</p>`}, "a style attribute"},
		{"a <style> element", HeaderOptions{}, "text/html", "", []string{`<head><style>p{}</style>`}, "<style>"},
		{"an event handler cut by a write", HeaderOptions{}, "text/html", "", []string{`<button type="button" on`, `click="go()">Go</button>`}, "event handler"},
		{"files only", HeaderOptions{}, "text/html", "", []string{`<script src="/app.js" defer></script><link rel="stylesheet" href="/app.css"><script type="application/ld+json">{}</script>`}, ""},
		{"not HTML", HeaderOptions{}, "application/json", "", []string{`{"html": "<script>x()</script>"}`}, ""},
		{"the page's own policy", HeaderOptions{}, "text/html", "script-src 'unsafe-inline'", []string{`<script>x()</script>`}, ""},
		{"a BaseCSP", HeaderOptions{BaseCSP: "default-src 'self' 'unsafe-inline'"}, "text/html", "", []string{`<script>x()</script>`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			opts := tt.opts
			opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.ct != "" {
					w.Header().Set("Content-Type", tt.ct)
				}
				if tt.own != "" {
					w.Header().Set("Content-Security-Policy", tt.own)
				}
				for _, b := range tt.body {
					w.Write([]byte(b))
				}
			})
			srv := httptest.NewServer(SecurityHeaders("https://acme.example.com", opts)(page))
			defer srv.Close()
			for range 3 {
				resp, err := http.Get(srv.URL + "/sales?x=1")
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(body) != strings.Join(tt.body, "") {
					t.Fatalf("the page's body reads %q", body)
				}
			}
			got := logs.String()
			if tt.warns == "" {
				if got != "" {
					t.Errorf("logged %q, want nothing", got)
				}
				return
			}
			if n := strings.Count(got, "level=WARN"); n != 1 {
				t.Errorf("%d warnings for three loads, want one:\n%s", n, got)
			}
			for _, s := range []string{tt.warns, "HeaderOptions.BaseCSP", "path=/sales", "default-src 'self'"} {
				if !strings.Contains(got, s) {
					t.Errorf("the warning lacks %q:\n%s", s, got)
				}
			}
			if strings.Contains(got, "x=1") {
				t.Errorf("the warning names the query:\n%s", got)
			}
		})
	}
}

// TestSecurityHeadersKeepsTheWriterInterfaces: a handler below can still
// flush and hijack, as a streaming page or a WebSocket upgrade does.
func TestSecurityHeadersKeepsTheWriterInterfaces(t *testing.T) {
	h := SecurityHeaders("https://acme.example.com", HeaderOptions{})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("the writer is no http.Flusher")
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			t.Error("the writer is no http.Hijacker")
			return
		}
		conn, rw, err := hj.Hijack()
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
		rw.Flush()
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status %d, want the hijacked 204", resp.StatusCode)
	}
}

func TestInlineCode(t *testing.T) {
	tests := []struct {
		name, page, want string
	}{
		{"inline script", `<script>x()</script>`, "inline script (<script> without src)"},
		{"module script", `<SCRIPT type="module">import "/a.js"</SCRIPT>`, "inline script (<script> without src)"},
		{"script file", `<script src="/a.js"></script>`, ""},
		{"data block", `<script type="application/json">{}</script>`, ""},
		{"style element", `<style>p{}</style>`, "inline style (<style>)"},
		{"style attribute", `<div class="a" style="color:red">`, "inline style (a style attribute)"},
		{"event handler", `<img src="/a.png" onerror="x()">`, "an inline event handler (on...=)"},
		{"javascript URL", `<a href="javascript:x()">go</a>`, "a javascript: URL"},
		{"text that mentions style", `<p>style="x" and onclick= in prose</p>`, ""},
		{"none", `<!doctype html><link rel="stylesheet" href="/a.css"><p class="x">hi</p>`, ""},
		{"'>' in a quoted value", `<a title="a>b" ONCLICK='x()'>go</a>`, "an inline event handler (on...=)"},
		{"another tag named script-like", `<scripts>x</scripts><noscript>no</noscript>`, ""},
		{"a word that starts with on", `<input once onward>`, ""},
		{"unquoted javascript URL", `<form action=JavaScript:x()>`, "a javascript: URL"},
		{"cut tag at the end", `<p class="x" sty`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := inlineCode([]byte(tt.page)); got != tt.want {
				t.Errorf("inlineCode(%q) = %q, want %q", tt.page, got, tt.want)
			}
		})
	}
}

// FuzzInlineCode: any page gives one of the named findings or none, and a
// finding needs a tag.
func FuzzInlineCode(f *testing.F) {
	f.Add([]byte(`<script>x()</script>`))
	f.Add([]byte(`<p style="a">`))
	f.Add([]byte(`<script type='text/template'>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		switch got := inlineCode(page); got {
		case "":
		case "inline script (<script> without src)", "inline style (<style>)", "inline style (a style attribute)",
			"an inline event handler (on...=)", "a javascript: URL":
			if !bytes.Contains(page, []byte("<")) {
				t.Errorf("inlineCode(%q) = %q without a tag", page, got)
			}
		default:
			t.Errorf("inlineCode(%q) = %q, not a known finding", page, got)
		}
	})
}

// TestSecurityHeadersLeavesTheBodyAlone: a file served through
// SecurityHeaders (io.Copy into the writer) arrives whole, with the type
// net/http gives it, whether it is read for inline code or not.
func TestSecurityHeadersLeavesTheBodyAlone(t *testing.T) {
	page := strings.Repeat("<p>a line of the page</p>\n", 5000) // beyond the 64 KiB read
	tests := []struct {
		name, path, ctype string
	}{
		{"HTML, read", "/page.html", "text/html; charset=utf-8"},
		{"text, not read", "/notes.txt", "text/plain; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := http.FileServerFS(fstest.MapFS{
				"page.html": {Data: []byte(page)},
				"notes.txt": {Data: []byte(page)},
			})
			srv := httptest.NewServer(SecurityHeaders("https://acme.example.com", HeaderOptions{Logger: slog.New(slog.DiscardHandler)})(files))
			defer srv.Close()
			resp, err := http.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(body) != page {
				t.Errorf("read %d bytes (%v), want the %d of the file", len(body), err, len(page))
			}
			if ct := resp.Header.Get("Content-Type"); ct != tt.ctype {
				t.Errorf("Content-Type %q, want %q", ct, tt.ctype)
			}
		})
	}
}

// FuzzOwnPolicyFrameAncestors: whatever policy a handler sends, the page
// ends up with the frame-ancestors a browser reads in it, or, when a
// browser reads none there, with the kit's 'self' ('none' under
// X-Frame-Options: DENY) in one of its policies, and the kit's is not
// added beside a page's own. A browser's reading: a header value is
// policies split at ",", a policy is directives split at ";", a
// directive's name runs to the first ASCII whitespace and is matched
// without regard to ASCII case, and only a policy's first frame-ancestors
// counts.
func FuzzOwnPolicyFrameAncestors(f *testing.F) {
	for _, seed := range []struct {
		first, second string
		deny          bool
	}{
		{"default-src 'self'", "", false},
		{"script-src 'self' 'unsafe-inline';", "", false},
		{"default-src 'self'; frame-ancestors https://partner.example", "", false},
		{"img-src *", "default-src 'self'; Frame-Ancestors 'none'", false},
		{"default-src 'self', frame-ancestors https://partner.example", "", false},
		{"default-src 'self'; frame-ancestors\u00a0https://partner.example", "", false},
		{"child-src https://old.example", "", true},
		{"", "", false},
	} {
		f.Add(seed.first, seed.second, seed.deny)
	}
	const platform = "https://acme.example.com"
	f.Fuzz(func(t *testing.T, first, second string, deny bool) {
		own := []string{first}
		if second != "" {
			own = append(own, second)
		}
		page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Security-Policy"] = slices.Clone(own)
			if deny {
				w.Header().Set("X-Frame-Options", "DENY")
			}
		})
		w := httptest.NewRecorder()
		SecurityHeaders(platform, HeaderOptions{Logger: slog.New(slog.DiscardHandler)})(page).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		in, out := browserFrameAncestors(own), browserFrameAncestors(w.Header().Values("Content-Security-Policy"))
		kit := "'self'"
		if deny {
			kit = "'none'"
		}
		if len(in) == 0 {
			if !slices.Contains(out, kit) {
				t.Errorf("policies %q without frame-ancestors gave %q, whose frame-ancestors %q lack the kit's %s",
					own, w.Header().Values("Content-Security-Policy"), out, kit)
			}
			return
		}
		for _, fa := range in {
			if !slices.Contains(out, fa) {
				t.Errorf("policies %q lost their frame-ancestors %s: %q gives %q", own, fa, w.Header().Values("Content-Security-Policy"), out)
			}
		}
		if slices.Contains(out, kit) && !slices.Contains(in, kit) {
			t.Errorf("policies %q with frame-ancestors %q got the kit's %s: %q", own, in, kit, w.Header().Values("Content-Security-Policy"))
		}
	})
}

// browserFrameAncestors returns the sources, joined by a space, of each
// frame-ancestors directive a browser enforces in values (the first of a
// policy), as FuzzOwnPolicyFrameAncestors describes the reading.
func browserFrameAncestors(values []string) []string {
	const space = " \t\n\f\r"
	var list []string
	for _, v := range values {
		for _, policy := range strings.Split(v, ",") {
			for _, d := range strings.Split(policy, ";") {
				d = strings.Trim(d, space)
				name, sources := d, ""
				if i := strings.IndexAny(d, space); i >= 0 {
					name, sources = d[:i], d[i:]
				}
				if len(name) == len("frame-ancestors") && strings.ToLower(name) == "frame-ancestors" && isASCII(name) {
					list = append(list, strings.Join(strings.FieldsFunc(sources, func(r rune) bool { return strings.ContainsRune(space, r) }), " "))
					break
				}
			}
		}
	}
	return list
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestComposeCSPSeveralPolicies: a base that holds several policies, as a
// header value separated by commas may, is composed policy by policy: the
// platform goes into the frame-src of each policy that limits frames (a
// frame-src merged across the comma would leave the first policy blocking
// the embed), and the kit's default-src and frame-ancestors go into the
// first, only when no policy has them.
func TestComposeCSPSeveralPolicies(t *testing.T) {
	const platform = "https://acme.example.com"
	tests := []struct{ name, base, want string }{
		{"one policy", "script-src 'self'", "script-src 'self'; default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'self'"},
		{"two, none limiting frames", "script-src 'self', img-src *",
			"script-src 'self'; default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'self', img-src *"},
		{"two, the second with default-src", "script-src 'self', default-src 'self'",
			"script-src 'self'; frame-ancestors 'self', default-src 'self'; frame-src 'self' " + platform},
		{"two limiting frames", "default-src 'self', frame-src https://video.example; frame-ancestors 'none'",
			"default-src 'self'; frame-src 'self' " + platform + ", frame-src https://video.example " + platform + "; frame-ancestors 'none'"},
		{"empty policies between commas", " , default-src 'self' ,",
			"default-src 'self'; frame-src 'self' " + platform + "; frame-ancestors 'self'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ComposeCSP(tt.base, []string{platform}); got != tt.want {
				t.Errorf("ComposeCSP(%q)\n got %q\nwant %q", tt.base, got, tt.want)
			}
		})
	}
}
