package middleware

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/embedkit/embedkit/embedkit"
)

// HostTarget is what the host script knows of a registered target that
// may share a frame with another (HostSettings.Targets): the frame of one
// such target moves to another in place, with the documented
// cube:action:navigate, when their Grant and Pinned tags are equal. None
// of it is secret; the tags are opaque.
type HostTarget struct {
	// Path is the target's embed path, the cube:action:navigate payload:
	// /embed/dashboard/{publicId}, or /embed/d/{deploymentId}/dashboard/{publicId}
	// for a Target with DeploymentPath.
	Path string `json:"path"`
	// Grant is equal for two targets exactly when the kit mints their
	// sessions with the same generate-session request for any one viewer:
	// an HMAC, under a key of the process, of the target-dependent parts
	// of that request (deployment, branch, kind, settings, theme). The
	// browser cannot compute one; the host script only compares those the
	// server published.
	Grant string `json:"grant"`
	// Pinned is equal for two targets exactly when their iframe URLs carry
	// the same parameters the platform reads once and pins for the embed's
	// life (chrome switches, tg_ and ms_ presets, locale, time zone).
	Pinned string `json:"pinned"`
	// Filters are the target's preset filters (Target.Controls.Filters)
	// as cube:action:set-filter parameters, f_<member>=<percent-encoded
	// JSON>: sent after a move to the target, and cleared after a move
	// away from it.
	Filters []string `json:"filters,omitempty"`
}

// grantKey derives the key of the grant and pinned tags from
// Config.LogKey: random per process unless the host sets LogKey, as it does
// for replicas whose records must agree, and then their pages' tags agree
// too (the host script compares only the tags of one page's settings, so
// agreeing is a convenience for caching the script, not a rule).
func grantKey(logKey []byte) []byte {
	m := hmac.New(sha256.New, logKey)
	m.Write([]byte("embedkit: grant and pinned tags"))
	return m.Sum(nil)
}

// tag is the opaque HMAC-SHA256 tag of v's canonical JSON (encoding/json
// sorts map keys) under key, for domain ("grant" or "pinned").
func tag(key []byte, domain string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(domain))
	m.Write([]byte{0})
	m.Write(b)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18]), nil
}

// navigable reports whether the frame of t may move to another target, or
// another to it, in place: a dashboard, not RouteScoped, without a
// security context of its own, under a Policy whose Customize hook, if
// any, is declared not to read the target (Policy.CustomizeIgnoresTarget).
func (k *Kit) navigable(t Target) bool {
	p := &k.cfg.Policy
	return t.Kind == KindDashboard && !t.RouteScoped && len(t.SecurityContext) == 0 &&
		(p.Customize == nil || p.CustomizeIgnoresTarget)
}

// hostTarget returns what the host script gets to know of t, or false for
// a target whose frame never moves in place.
func (k *Kit) hostTarget(t Target) (HostTarget, bool, error) {
	if !k.navigable(t) {
		return HostTarget{}, false, nil
	}
	p := &k.cfg.Policy
	theme := p.Theme
	if t.Theme != nil {
		theme = t.Theme
	}
	// The parts of the generate-session request that depend on the
	// target; the viewer's (identity, groups, attributes, tenant, creator
	// mode, the request-time security context) are the same for every
	// frame of one page, since the page has one viewer.
	grant, err := tag(k.grantKey, "grant", struct {
		DeploymentID int64                          `json:"deploymentId"`
		Branch       string                         `json:"branchName"`
		Kind         Kind                           `json:"kind"`
		Settings     *embedkit.EmbedSessionSettings `json:"settings"`
		Theme        *embedkit.EmbedTheme           `json:"theme"`
	}{p.DeploymentID, p.BranchName, t.Kind, p.Settings.Merge(t.Settings), theme})
	if err != nil {
		return HostTarget{}, false, err
	}
	pinnedQuery := url.Values{}
	for _, s := range t.Chrome.switches() {
		if s.on {
			pinnedQuery.Set(s.param, s.value)
		}
	}
	for _, g := range t.Controls.TimeGrains {
		pinnedQuery.Set("tg_"+g.Member, g.Grain)
	}
	for _, m := range t.Controls.MemberSwitchers {
		pinnedQuery.Set("ms_"+m.Member, m.Selected)
	}
	pinned, err := tag(k.grantKey, "pinned", struct {
		Query    string `json:"query"`
		Locale   string `json:"locale"`
		TimeZone string `json:"timezone"`
	}{pinnedQuery.Encode(), t.Locale, t.TimeZone})
	if err != nil {
		return HostTarget{}, false, err
	}
	ht := HostTarget{Path: "/embed/dashboard/" + t.PublicID, Grant: grant, Pinned: pinned}
	if t.DeploymentPath {
		ht.Path = "/embed/d/" + strconv.FormatInt(p.DeploymentID, 10) + "/dashboard/" + t.PublicID
	}
	for _, f := range t.Controls.Filters {
		param, err := f.URLParameter()
		if err != nil {
			return HostTarget{}, false, err
		}
		ht.Filters = append(ht.Filters, scriptEscape(param))
	}
	return ht, true, nil
}

// scriptEscape writes the space of a query-escaped parameter as %20, as
// the host script's encodeURIComponent does, so that every set-filter
// parameter reaches the embed in one form.
func scriptEscape(param string) string {
	return strings.ReplaceAll(param, "+", "%20")
}

// setHostTargets fills k.hostTargets from the registered targets, by
// name and by frame path (dashboard/{publicId}). An unregistered
// dashboard (AllowAnyDashboard) is not listed: its frame never moves.
func (k *Kit) setHostTargets() error {
	k.grantKey = grantKey(k.cfg.LogKey)
	k.hostTargets = make(map[string]HostTarget)
	for name, t := range k.targets {
		ht, ok, err := k.hostTarget(t)
		if err != nil {
			return fmt.Errorf("middleware: Config.Targets[%q]: %w", name, err)
		}
		if ok {
			// By name and by frame path: a page names a target either way.
			k.hostTargets[name] = ht
			k.hostTargets[t.canonicalRef()] = ht
		}
	}
	return nil
}
