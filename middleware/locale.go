package middleware

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	// The zone check must give the same answer on every machine, including
	// containers without a zoneinfo database, so the package carries its
	// own copy (about 450 kB in the binary).
	_ "time/tzdata"

	"golang.org/x/text/language"
)

// maxAcceptLanguage bounds the Accept-Language header the kit parses.
const maxAcceptLanguage = 512

// validZones caches names that time.LoadLocation accepted. Only valid
// names are kept, so the cache is bounded by the zone database.
var validZones sync.Map

// MaxTimeZoneLength is the longest time zone name ValidTimeZone accepts
// (the host script's setTimezone holds to it too).
const MaxTimeZoneLength = 64

// ValidTimeZone reports whether name is an IANA time zone name the
// platform accepts: one time.LoadLocation knows, other than "Local" and
// the empty name. Bare UTC offsets ("+02:00", "UTC+2") are not zone
// names and are rejected; "Etc/GMT-2" and "UTC" are accepted.
func ValidTimeZone(name string) bool {
	if name == "" || name == "Local" || len(name) > MaxTimeZoneLength {
		return false
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '/' || c == '_' || c == '-' || c == '+'
		if !ok {
			return false
		}
	}
	if name[0] == '/' || name[0] == '+' || name[0] == '-' || strings.Contains(name, "//") {
		return false
	}
	if _, ok := validZones.Load(name); ok {
		return true
	}
	if _, err := time.LoadLocation(name); err != nil {
		return false
	}
	validZones.Store(name, struct{}{})
	return true
}

// localeSet is the supported locales with their parsed tags and matcher.
type localeSet struct {
	names   []string
	tags    []language.Tag
	matcher language.Matcher
	// tagMemo and headerMemo remember the answers of match and acceptLocale:
	// parsing a tag and asking the matcher takes microseconds, and a
	// host's viewers send a handful of distinct values.
	tagMemo, headerMemo *matchMemo
}

// maxMemo bounds each memo of a localeSet. The strings come from
// browsers, so an attacker could send endless distinct ones: past the
// bound, answers are computed and not kept.
const maxMemo = 1024

// matchMemo remembers up to maxMemo answers of a locale match, keyed by
// the string matched. It is safe for concurrent use.
type matchMemo struct {
	m sync.Map // string → string; "" for no supported locale
	n atomic.Int64
}

// get returns the answer remembered for key, computing it with f and
// remembering it while there is room.
func (mm *matchMemo) get(key string, f func(string) (string, bool)) (string, bool) {
	if v, ok := mm.m.Load(key); ok {
		l := v.(string)
		return l, l != ""
	}
	l, ok := f(key)
	if !ok {
		l = ""
	}
	// The count is taken before the entry is stored, so that the bound
	// holds however many goroutines add at once; a key two of them
	// computed together is counted once.
	if mm.n.Add(1) > maxMemo {
		mm.n.Add(-1)
	} else if _, loaded := mm.m.LoadOrStore(strings.Clone(key), l); loaded {
		mm.n.Add(-1)
	}
	return l, l != ""
}

// newLocaleSet parses names; i is the index of the first that is not a
// BCP-47 tag, when err is not nil.
func newLocaleSet(names []string) (set localeSet, i int, err error) {
	tags := make([]language.Tag, len(names))
	for i, n := range names {
		if tags[i], err = language.Parse(n); err != nil {
			return localeSet{}, i, err
		}
	}
	return localeSet{
		names: names, tags: tags, matcher: language.NewMatcher(tags),
		tagMemo: new(matchMemo), headerMemo: new(matchMemo),
	}, 0, nil
}

// match returns the supported locale that matches tag: exactly, or with
// high confidence in the same language ("es-AR" gives "es-MX", "de" gives
// "de-DE", "no" gives "nb-NO"). A language the platform does not ship
// gives nothing, even where the matcher would offer a fallback such as
// English, so that the next source of preference gets its turn.
func (s localeSet) match(tag string) (string, bool) {
	if tag == "" || len(tag) > 64 {
		return "", false
	}
	return s.tagMemo.get(tag, s.parseMatch)
}

// parseMatch is match without the memo.
func (s localeSet) parseMatch(tag string) (string, bool) {
	t, err := language.Parse(tag)
	if err != nil {
		return "", false
	}
	return s.matchTag(t)
}

// matchTag is match for a parsed tag.
func (s localeSet) matchTag(t language.Tag) (string, bool) {
	_, i, conf := s.matcher.Match(t)
	switch conf {
	case language.Exact:
		return s.names[i], true
	case language.High:
		want, _ := t.Base()
		got, _ := s.tags[i].Base()
		if want == got {
			return s.names[i], true
		}
	}
	return "", false
}

// acceptLocale returns the supported locale for the first language of the
// Accept-Language header, in order of preference, that has one.
func (k *Kit) acceptLocale(header string) (string, bool) {
	if header == "" || len(header) > maxAcceptLanguage {
		return "", false
	}
	return k.locales.headerMemo.get(header, k.locales.acceptMatch)
}

// acceptMatch is acceptLocale without the memo.
func (s localeSet) acceptMatch(header string) (string, bool) {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil {
		return "", false
	}
	for _, t := range tags {
		if l, ok := s.matchTag(t); ok {
			return l, true
		}
	}
	return "", false
}

// prefs are the sources of an embed's locale and time zone, highest
// precedence first.
type prefs struct {
	// hostLocale and hostTimeZone are the host's explicit choice.
	hostLocale, hostTimeZone string
	// browserLocale and browserTimeZone are a choice made in the page
	// (query string or JSON body); they are checked like everything else.
	browserLocale, browserTimeZone string
	// viewer is the logged-in user, for their profile.
	viewer *Viewer
	// acceptLanguage is the request's Accept-Language header.
	acceptLanguage string
}

// locale picks the embed's locale: the host's choice, the page's choice,
// the viewer's profile, the browser's Accept-Language, the configured
// default. Each candidate counts only if it matches a supported locale.
// The result is one of the supported locales, or empty for the account
// default.
func (k *Kit) locale(p prefs) string {
	for _, c := range []string{p.hostLocale, p.browserLocale, viewerLocale(p.viewer)} {
		if l, ok := k.locales.match(c); ok {
			return l
		}
	}
	if l, ok := k.acceptLocale(p.acceptLanguage); ok {
		return l
	}
	return k.cfg.Locales.Default
}

// timeZone picks the embed's time zone: the host's choice, the page's
// choice, the viewer's profile, the configured default. Invalid names are
// skipped; empty means the account default.
func (k *Kit) timeZone(p prefs) string {
	for _, c := range []string{p.hostTimeZone, p.browserTimeZone, viewerTimeZone(p.viewer)} {
		if ValidTimeZone(c) {
			return c
		}
	}
	return k.cfg.Locales.TimeZone
}

// viewerLocale returns v's profile locale, or "".
func viewerLocale(v *Viewer) string {
	if v == nil {
		return ""
	}
	return v.Locale
}

// viewerTimeZone returns v's profile time zone, or "".
func viewerTimeZone(v *Viewer) string {
	if v == nil {
		return ""
	}
	return v.TimeZone
}

// requestPrefs collects the locale and time-zone sources of a request.
func requestPrefs(r *http.Request, t Target, v *Viewer, browserLocale, browserTimeZone string) prefs {
	return prefs{
		hostLocale:      t.Locale,
		hostTimeZone:    t.TimeZone,
		browserLocale:   browserLocale,
		browserTimeZone: browserTimeZone,
		viewer:          v,
		acceptLanguage:  r.Header.Get("Accept-Language"),
	}
}
