package doctor

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// maxRedirects bounds the redirects followed within the host page's
// origin.
const maxRedirects = 5

// hostClient is the client the host checks use: Config.HTTPClient, or one
// with a timeout that keeps no cookies and follows redirects only within
// the page's origin (a redirect elsewhere, such as to a sign-in page at an
// identity provider, is reported, not followed).
func (d *run) hostClient(origin string) *http.Client {
	if d.cfg.HTTPClient != nil {
		return d.cfg.HTTPClient
	}
	return &http.Client{
		Timeout: 10 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects || originOf(req.URL) != origin {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}

// redactURL returns raw with the password of its user information
// replaced (url.URL.Redacted), for reports: a URL given on the command
// line may carry credentials. A value that does not parse is not shown.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a value that does not parse as a URL)"
	}
	return u.Redacted()
}

func originOf(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// skipPageChecks reports the checks of the page's headers as skipped.
func (d *run) skipPageChecks(why string) {
	d.skip("frame-src", "", why)
	d.skip("frame-ancestors", "", why)
}

// hostPageFailed reports the host-page check as failed with c's detail
// and fix, and the checks that need the page (its headers' and the
// origin's) as skipped for why.
func (d *run) hostPageFailed(c Check, why string) {
	c.ID, c.Status = "host-page", Failed
	d.add(c)
	d.skipPageChecks(why)
	d.skip("host-origin", "", why)
}

// embedsRE finds what marks a page that embeds: an <embedkit-frame>, or an
// <iframe> tag with data-embedkit or a src attribute (its value is checked
// against the frame endpoint).
var (
	embedkitFrameRE = regexp.MustCompile(`(?i)<embedkit-frame[\s>]`)
	iframeTagRE     = regexp.MustCompile(`(?i)<iframe\b[^>]*>`)
	iframeSrcRE     = regexp.MustCompile(`(?i)\ssrc\s*=\s*["']?([^"'\s>]+)`)
)

// embeds reports whether an HTML page holds a frame of the kit: an
// <embedkit-frame>, an <iframe data-embedkit>, or an <iframe> whose src is
// below the frame endpoint prefix (as a path, or on the page's origin).
func embeds(body []byte, origin, framePrefix string) bool {
	if embedkitFrameRE.Match(body) {
		return true
	}
	for _, tag := range iframeTagRE.FindAll(body, -1) {
		if bytes.Contains(bytes.ToLower(tag), []byte("data-embedkit")) {
			return true
		}
		if m := iframeSrcRE.FindSubmatch(tag); m != nil {
			src := html.UnescapeString(string(m[1]))
			if strings.HasPrefix(src, framePrefix) || strings.HasPrefix(strings.ToLower(src), origin+framePrefix) {
				return true
			}
		}
	}
	return false
}

// checkHost loads the host page as a browser navigating to it would, reads
// its Content-Security-Policy when it is a page that embeds, and asks the
// host app whether it sees the origin browsers use.
func (d *run) checkHost(ctx context.Context) {
	page, err := url.Parse(d.cfg.HostURL)
	if err != nil || (page.Scheme != "http" && page.Scheme != "https") || page.Host == "" {
		d.hostPageFailed(Check{Detail: fmt.Sprintf("host URL %s is not an absolute http or https URL", redactURL(d.cfg.HostURL)),
			Fix: "give the address of a page of the app that embeds, as a browser would open it"},
			"no valid host page to load (see host-page)")
		return
	}
	origin := originOf(page)
	client := d.hostClient(origin)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page.String(), nil)
	if err != nil {
		d.hostPageFailed(Check{Detail: err.Error()}, "the host page could not be requested (see host-page)")
		return
	}
	for k, vs := range d.cfg.HostHeader {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Sec-Fetch-Site", "none")
	req.Header.Set("Sec-Fetch-Mode", "navigate")
	req.Header.Set("Sec-Fetch-Dest", "document")
	resp, err := client.Do(req)
	if err != nil {
		d.hostPageFailed(Check{Detail: "loading the host page failed: " + err.Error(),
			Fix: "start the app, and give the URL browsers use"},
			"the host page could not be loaded (see host-page)")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()

	// Only a page that embeds is judged: the sign-in page a redirect lands
	// on, or an error page, may carry another policy than the pages with
	// frames.
	final := resp.Request.URL
	detail := fmt.Sprintf("GET %s answered %d", final.Redacted(), resp.StatusCode)
	if final.String() != page.String() {
		detail = fmt.Sprintf("GET %s was redirected to %s, which answered %d", page.Redacted(), final.Redacted(), resp.StatusCode)
	}
	const signIn = "give a page that embeds and answers without signing in, or send a signed-in test user's cookie with the request (Config.HostHeader)"
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		d.add(Check{ID: "host-page", Status: Warning, Detail: detail + " to " + redactURL(resp.Header.Get("Location")) + " (outside the page's origin, not followed): no page that embeds was checked",
			Fix: signIn})
		d.skipPageChecks("the host page redirected elsewhere (see host-page)")
	case resp.StatusCode >= 400:
		d.add(Check{ID: "host-page", Status: Warning, Detail: detail + ": no page that embeds was checked",
			Fix: "give the address of a page that embeds"})
		d.skipPageChecks(fmt.Sprintf("the host page answered %d (see host-page)", resp.StatusCode))
	case !embeds(body, originOf(final), d.kit.FramePrefix()):
		d.add(Check{ID: "host-page", Status: Warning,
			Detail: detail + fmt.Sprintf(", a page with no frame of the kit (no <iframe> of %s, <iframe data-embedkit> or <embedkit-frame>): a sign-in page?", d.kit.FramePrefix()),
			Fix:    signIn})
		d.skipPageChecks("the page checked does not embed (see host-page)")
	default:
		d.add(Check{ID: "host-page", Status: OK, Detail: detail + ", a page that embeds"})
		d.checkCSP(resp.Header, final)
	}
	d.checkHostOrigin(ctx, client, final)
}

// checkCSP reads the enforced policies of the page: the host's frame
// endpoint and, after its redirect, the platform must both be allowed by
// every policy's frame-src (or its fallbacks), and frame-ancestors should
// say who may frame the host's own page.
func (d *run) checkCSP(h http.Header, page *url.URL) {
	policies := parseCSP(h.Values("Content-Security-Policy"))
	self := page
	frameURL, _ := url.Parse(originOf(page) + d.kit.FramePrefix())
	platformURL, _ := url.Parse(d.kit.PlatformOrigin() + "/embed/")

	switch {
	case len(policies) == 0:
		detail := "the page sends no Content-Security-Policy, so nothing limits its frames"
		if len(h.Values("Content-Security-Policy-Report-Only")) > 0 {
			detail += " (a Report-Only policy is sent; browsers only report it)"
		}
		d.add(Check{ID: "frame-src", Status: OK, Detail: detail})
	default:
		var refused []string
		for _, p := range policies {
			dir := p.frameDirective()
			if !p.allowsFrame(frameURL, self, false) {
				refused = append(refused, fmt.Sprintf("%s %q refuses the frame endpoint %s", dir, strings.Join(p.directives[dir], " "), frameURL))
			}
			if !p.allowsFrame(platformURL, self, true) {
				refused = append(refused, fmt.Sprintf("%s %q refuses the platform %s", dir, strings.Join(p.directives[dir], " "), d.kit.PlatformOrigin()))
			}
		}
		if len(refused) > 0 {
			d.add(Check{ID: "frame-src", Status: Failed, Detail: strings.Join(refused, "; "),
				Fix: fmt.Sprintf("add 'self' and %s to frame-src of the page's Content-Security-Policy: the frame endpoint is the app's own and redirects to the platform", d.kit.PlatformOrigin())})
		} else {
			d.add(Check{ID: "frame-src", Status: OK, Detail: fmt.Sprintf("the page's Content-Security-Policy lets its frames load the frame endpoint and %s", d.kit.PlatformOrigin())})
		}
	}

	for _, p := range policies {
		if fa, ok := p.directives["frame-ancestors"]; ok {
			d.add(Check{ID: "frame-ancestors", Status: OK, Detail: "frame-ancestors " + strings.Join(fa, " ")})
			return
		}
	}
	if xfo := h.Get("X-Frame-Options"); xfo != "" {
		d.add(Check{ID: "frame-ancestors", Status: Warning, Detail: "no frame-ancestors; X-Frame-Options " + xfo + " protects the page in today's browsers",
			Fix: "add frame-ancestors 'self' (or 'none') to the page's Content-Security-Policy, the standard that replaces X-Frame-Options"})
		return
	}
	d.add(Check{ID: "frame-ancestors", Status: Warning, Detail: "no frame-ancestors and no X-Frame-Options: any site may frame the page that holds the viewer's dashboards",
		Fix: "add frame-ancestors 'self' (or 'none') to the page's Content-Security-Policy"})
}

// checkHostOrigin compares the origin the kit gives the platform with the
// one browsers use. With Config.Origins.Host set, the comparison is direct.
// Without it, the kit derives the origin from each request's Host, and a
// proxy that rewrites Host makes it wrong: the session endpoint is then
// sent a request whose Origin is the browsers' origin and no fetch
// metadata, as an older browser would send it. The app refuses it (403)
// exactly when the Host it sees is another.
func (d *run) checkHostOrigin(ctx context.Context, client *http.Client, page *url.URL) {
	browser := originOf(page)
	if ho := strings.TrimSuffix(d.cfg.Kit.Origins.Host, "/"); ho != "" {
		if !strings.EqualFold(ho, browser) {
			d.add(Check{ID: "host-origin", Status: Failed,
				Detail: fmt.Sprintf("Origins.Host is %s but browsers reach the page at %s: the embedded page talks to %s only, so the host page hears nothing from it", ho, browser, ho),
				Fix:    "set " + d.field("Origins.Host") + " to " + browser})
			return
		}
		d.add(Check{ID: "host-origin", Status: OK, Detail: "Origins.Host is the origin browsers use, " + browser})
		return
	}
	names := slices.Sorted(maps.Keys(d.cfg.Kit.Targets))
	target := ""
	if len(names) > 0 {
		target = names[0]
	}
	body := fmt.Sprintf(`{"target":%q}`, target)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, browser+d.kit.SessionPath(), strings.NewReader(body))
	if err != nil {
		d.add(Check{ID: "host-origin", Status: Failed, Detail: err.Error()})
		return
	}
	req.Header.Set("Origin", browser)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		d.add(Check{ID: "host-origin", Status: Failed, Detail: "asking the session endpoint failed: " + err.Error()})
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusForbidden:
		d.add(Check{ID: "host-origin", Status: Failed,
			Detail: fmt.Sprintf("the app refused a request from its own origin %s (403): it sees another Host than browsers use, so it would name the wrong origin to the platform", browser),
			Fix:    "set " + d.field("Origins.Host") + " to " + browser + ", or make the proxy pass the Host header through"})
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		if resp.StatusCode == http.StatusNotFound && kitAnswer(resp) {
			// The endpoint exists: it accepted the origin (the
			// cross-origin check runs first) and then found no target by
			// the name the doctor sent, which is the doctor's name for
			// it, not necessarily the app's.
			d.sameHost(page, fmt.Sprintf("; the session endpoint at %s does not know target %q (404), so the targets checked here are not named as the app names them", d.kit.SessionPath(), target),
				"name them as the app does (embedkit doctor -dashboards name=publicId)")
			return
		}
		d.add(Check{ID: "host-origin", Status: Warning,
			Detail: fmt.Sprintf("no session endpoint at %s (%d, not the kit's JSON answer; an ErrorHandler of the app's could also answer so for target %q) to ask, and Origins.Host is not set", d.kit.SessionPath(), resp.StatusCode, target),
			Fix:    "set " + d.field("Origins.Host") + " to " + browser + " (the production setting)"})
	default:
		d.sameHost(page, "", "")
	}
}

// sameHost records the host-origin check of an app that derives its
// origin from each request and sees the Host browsers use; note is added
// to its detail, and noteFix to its fix.
func (d *run) sameHost(page *url.URL, note, noteFix string) {
	browser := originOf(page)
	c := Check{ID: "host-origin", Status: OK, Detail: "the app sees the Host browsers use (Origins.Host is derived from each request)"}
	var fixes []string
	if page.Scheme == "https" {
		c.Status = Warning
		c.Detail += "; behind a proxy that terminates TLS it would name http:// to the platform"
		fixes = append(fixes, "set Origins.Host to "+browser+" (the production setting)")
	}
	if note != "" {
		c.Status = Warning
		c.Detail += note
		fixes = append(fixes, noteFix)
	}
	c.Fix = strings.Join(fixes, "; ")
	d.add(c)
}

// kitAnswer reports whether resp is an error answer of the kit's own
// JSON endpoint (the default ErrorHandler's {"error": ...}), not a
// router's "404 page not found".
func kitAnswer(resp *http.Response) bool {
	ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "application/json")
}
