package middleware

import (
	"slices"
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
			if got := tt.kit.locale(tt.p); got != tt.want {
				t.Errorf("locale = %q, want %q", got, tt.want)
			}
		})
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
		if z := k.timeZone(p); z != "" && !ValidTimeZone(z) {
			t.Fatalf("time zone %q is not valid", z)
		}
	})
}
