package middleware

import (
	"fmt"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/embedkit"
)

// TestHostScriptRulesMatchGo runs the Go rules and the served script's
// argument checks on the same cases: a locale (embedkit.IsLocale), a time
// zone (ValidTimeZone) and a filter member (embedkit.DashboardFilter) is
// accepted by the script exactly when Go accepts it. The data parts of the
// rules (lengths, the member pattern) are generated from Go into
// hostpage/src/rules.js; this holds the rest (BCP 47 parsing, the zone
// database) to the same answers.
func TestHostScriptRulesMatchGo(t *testing.T) {
	t.Parallel()
	type ruleCase struct {
		Rule, Value string
		Go          bool
	}
	var cases []ruleCase
	for _, l := range []string{"de-DE", "en", "de", "fr-FR", "pt-BR", "es-419", "zh-Hant-TW", "sr-Latn-RS", "de-DE-u-co-phonebk",
		"en-US-x-private", "de-CH-1996", "ja-JP-u-ca-japanese", "haw", "de_DE", "", "de DE", "123", "e", "en-", "-en", "en--US",
		"toolonglanguage", "i-klingon", "I-DEFAULT", "sgn-BE-FR", "zh-min-nan", "art-lojban", "cel-gaulish", "i-unknown", "x-a", "X-abc-def", "en-GB-oed", strings.Repeat("a", 9), "de-" + strings.Repeat("x", 9), "x-private", "en-US\n",
		"de-" + strings.Repeat("abcdefgh-", 13) + "ab", "de-" + strings.Repeat("abcdefgh-", 14) + "ab"} {
		cases = append(cases, ruleCase{"locale", l, embedkit.IsLocale(l)})
	}
	for _, tz := range []string{"Europe/Berlin", "America/New_York", "UTC", "Etc/GMT-2", "Asia/Tokyo", "America/Argentina/Buenos_Aires",
		"Local", "", "us/eastern", "US/Eastern", "Asia/Calcutta", "+02:00", "UTC+2", "Mars/Olympus", "europe/berlin", "Europe//Berlin", "/Europe/Berlin", "Europe/Berlin ",
		"America/" + strings.Repeat("x", 60)} {
		cases = append(cases, ruleCase{"timezone", tz, ValidTimeZone(tz)})
	}
	for _, m := range []string{"orders.status", "orders.created_at", "orders.status.x", "1orders.status", "orders.status&x=1",
		"Orders.Status", "a.b", "status", ".status", "orders.", ".", "", "orders\n.status", "orders.\nstatus", "vue.é", "a b.c d"} {
		_, err := embedkit.DashboardFilter{Member: m, Value: "x"}.URLParameter()
		cases = append(cases, ruleCase{"member", m, err == nil || !strings.Contains(err.Error(), "member")})
	}
	r := runHost(t, `
const a = h.iframe({id: "a", target: "sales"});
h.load();
h.ready(a);
const f = h.win.embedkit.frame(a);
const call = {
  locale: (v) => f.setLocale(v),
  timezone: (v) => f.setTimezone(v),
  member: (v) => f.setFilter(v, "x"),
};
return `+js(cases)+`.map((c) => {
  try {
    call[c.Rule](c.Value);
    return true;
  } catch (e) {
    if (e.name !== "TypeError") throw e;
    return false;
  }
});
`)
	var got []bool
	r.result(t, &got)
	if len(got) != len(cases) {
		t.Fatalf("%d answers for %d cases", len(got), len(cases))
	}
	accepted := 0
	for i, c := range cases {
		if c.Go {
			accepted++
		}
		t.Run(fmt.Sprintf("%s %q", c.Rule, c.Value), func(t *testing.T) {
			if got[i] != c.Go {
				t.Errorf("the script accepts it: %t; Go: %t", got[i], c.Go)
			}
		})
	}
	if accepted == 0 || accepted == len(cases) {
		t.Errorf("Go accepts %d of %d cases; the table must hold both kinds", accepted, len(cases))
	}
}
