package middleware

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

func TestLocaleNegotiation(t *testing.T) {
	k := newTestKit(t, func(c *Config) { c.Locales.Default = "" })
	kd := newTestKit(t, func(c *Config) { c.Locales.Default = "en-US" })
	tests := []struct {
		name string
		kit  *testKit
		p    prefs
		want string
	}{
		{"host wins over everything", k, prefs{hostLocale: "fr-FR", browserLocale: "de-DE", viewer: &Viewer{Locale: "ja-JP"}, acceptLanguage: "it"}, "fr-FR"},
		{"page choice over profile", k, prefs{browserLocale: "de", viewer: &Viewer{Locale: "ja-JP"}}, "de-DE"},
		{"profile over Accept-Language", k, prefs{viewer: &Viewer{Locale: "ja"}, acceptLanguage: "it-IT"}, "ja-JP"},
		{"unsupported profile falls through", k, prefs{viewer: &Viewer{Locale: "zu-ZA"}, acceptLanguage: "sv"}, "sv-SE"},
		{"garbage page choice falls through", k, prefs{browserLocale: "<script>", acceptLanguage: "nb-NO"}, "nb-NO"},
		{"Accept-Language quality order", k, prefs{acceptLanguage: "zu;q=1, pt-PT;q=0.9, de;q=0.8"}, "pt-PT"},
		{"Accept-Language Brazilian", k, prefs{acceptLanguage: "pt-BR,pt;q=0.9"}, "pt-BR"},
		{"Accept-Language regional Spanish", k, prefs{acceptLanguage: "es-MX"}, "es-MX"},
		{"Accept-Language Vietnamese", k, prefs{acceptLanguage: "vi"}, "vi-VN"},
		{"Norwegian Bokmal by macro language", k, prefs{acceptLanguage: "no"}, "nb-NO"},
		{"nothing matches, no default", k, prefs{acceptLanguage: "zu, xh"}, ""},
		{"nothing matches, default", kd, prefs{acceptLanguage: "zu"}, "en-US"},
		{"malformed header", k, prefs{acceptLanguage: ";;;q=abc"}, ""},
		{"empty everything", k, prefs{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The second round answers from the memo.
			for round := range 2 {
				if got := tt.kit.locale(tt.p); got != tt.want {
					t.Errorf("round %d: locale = %q, want %q", round, got, tt.want)
				}
			}
		})
	}
}

// TestLocaleMemoBounded sends more distinct values than the memo keeps:
// every answer stays right, and the memo stops growing at its bound.
func TestLocaleMemoBounded(t *testing.T) {
	k := newTestKit(t, nil)
	for i := range 3 * maxMemo {
		tag := fmt.Sprintf("de-x-%d", i)
		if got, ok := k.locales.match(tag); !ok || got != "de-DE" {
			t.Fatalf("match(%q) = %q, %v; want de-DE", tag, got, ok)
		}
		header := fmt.Sprintf("zu;q=0.9, sv-x-%d;q=0.5", i)
		if got, ok := k.acceptLocale(header); !ok || got != "sv-SE" {
			t.Fatalf("acceptLocale(%q) = %q, %v; want sv-SE", header, got, ok)
		}
	}
	for name, mm := range map[string]*matchMemo{"tags": k.locales.tagMemo, "headers": k.locales.headerMemo} {
		n := 0
		mm.m.Range(func(any, any) bool { n++; return true })
		if n != maxMemo || mm.n.Load() != maxMemo {
			t.Errorf("%s memo holds %d entries (count %d), want %d", name, n, mm.n.Load(), maxMemo)
		}
	}
}

func TestTimeZoneNegotiation(t *testing.T) {
	k := newTestKit(t, nil)
	kd := newTestKit(t, func(c *Config) { c.Locales.TimeZone = "Europe/Oslo" })
	tests := []struct {
		name string
		kit  *testKit
		p    prefs
		want string
	}{
		{"host wins", k, prefs{hostTimeZone: "Asia/Tokyo", browserTimeZone: "Europe/Berlin", viewer: &Viewer{TimeZone: "America/New_York"}}, "Asia/Tokyo"},
		{"page choice over profile", k, prefs{browserTimeZone: "Europe/Berlin", viewer: &Viewer{TimeZone: "America/New_York"}}, "Europe/Berlin"},
		{"profile", k, prefs{viewer: &Viewer{TimeZone: "America/Sao_Paulo"}}, "America/Sao_Paulo"},
		{"bare offset skipped", k, prefs{browserTimeZone: "+02:00", viewer: &Viewer{TimeZone: "Europe/Paris"}}, "Europe/Paris"},
		{"UTC+2 skipped", k, prefs{browserTimeZone: "UTC+2"}, ""},
		{"Local skipped", k, prefs{browserTimeZone: "Local"}, ""},
		{"unknown name skipped", k, prefs{browserTimeZone: "Mars/Olympus_Mons"}, ""},
		{"path traversal skipped", k, prefs{browserTimeZone: "../../etc/passwd"}, ""},
		{"Etc zone accepted", k, prefs{browserTimeZone: "Etc/GMT-2"}, "Etc/GMT-2"},
		{"UTC accepted", k, prefs{browserTimeZone: "UTC"}, "UTC"},
		{"default", kd, prefs{browserTimeZone: "nope"}, "Europe/Oslo"},
		{"nothing", k, prefs{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.kit.timeZone(tt.p); got != tt.want {
				t.Errorf("timeZone = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidTimeZone(t *testing.T) {
	for _, tz := range []string{"Europe/Berlin", "America/Argentina/Buenos_Aires", "UTC", "Etc/GMT+12"} {
		if !ValidTimeZone(tz) {
			t.Errorf("ValidTimeZone(%q) = false", tz)
		}
	}
	for _, tz := range []string{"", "Local", "+01:00", "-0500", "GMT+1:00", "Europe//Berlin", "/etc/localtime", "Europe/Berlin\x00", "Europe\\Berlin", "europe/berlin "} {
		if ValidTimeZone(tz) {
			t.Errorf("ValidTimeZone(%q) = true", tz)
		}
	}
}

// FuzzNegotiateLocale feeds arbitrary Accept-Language headers, page
// choices and time zones to the negotiation: it must never panic, the
// locale must be a supported one or empty, and the time zone valid or
// empty.
func FuzzNegotiateLocale(f *testing.F) {
	f.Add("de-CH,de;q=0.9,en;q=0.8", "fr", "Europe/Zurich")
	f.Add("*", "", "Local")
	f.Add("", "es-419", "+05:30")
	k, err := New(Config{
		Platform:    &fakePlatform{},
		Identity:    headerIdentity,
		Store:       newMapStore(),
		Policy:      Policy{DeploymentID: 1},
		PlatformURL: "https://acme.example.com",
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, acceptLanguage, pageLocale, tz string) {
		p := prefs{acceptLanguage: acceptLanguage, browserLocale: pageLocale, browserTimeZone: tz, viewer: &Viewer{Locale: pageLocale, TimeZone: tz}}
		if l := k.locale(p); l != "" && !slices.Contains(DefaultLocales, l) {
			t.Fatalf("locale %q is not supported", l)
		}
		// The memo answers as the matcher does, before and after it
		// remembers.
		for range 2 {
			if got, want := fmt.Sprint(k.locales.match(pageLocale)), fmt.Sprint(k.locales.parseMatch(pageLocale)); len(pageLocale) <= 64 && pageLocale != "" && got != want {
				t.Fatalf("match(%q) = %s, matcher says %s", pageLocale, got, want)
			}
			if got, want := fmt.Sprint(k.acceptLocale(acceptLanguage)), fmt.Sprint(k.locales.acceptMatch(acceptLanguage)); len(acceptLanguage) <= maxAcceptLanguage && acceptLanguage != "" && got != want {
				t.Fatalf("acceptLocale(%q) = %s, matcher says %s", acceptLanguage, got, want)
			}
		}
		if z := k.timeZone(p); z != "" && !ValidTimeZone(z) {
			t.Fatalf("time zone %q is not valid", z)
		}
	})
}

// TestLocaleMemoConcurrent matches the same values from many goroutines
// at once: each is remembered once and counted once.
func TestLocaleMemoConcurrent(t *testing.T) {
	k := newTestKit(t, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 64 {
				if got, ok := k.locales.match(fmt.Sprintf("fr-x-%d", i)); !ok || got != "fr-FR" {
					t.Errorf("match = %q, %v; want fr-FR", got, ok)
				}
			}
		})
	}
	wg.Wait()
	n := 0
	k.locales.tagMemo.m.Range(func(any, any) bool { n++; return true })
	if n != 64 || k.locales.tagMemo.n.Load() != 64 {
		t.Errorf("memo holds %d entries, counts %d; want 64 and 64", n, k.locales.tagMemo.n.Load())
	}
}
