package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/embedkit/embedkit/embedkit/emulator"
)

// The platform's embedded page on its own, framed by a bare host page that
// uses neither the kit nor its host script: what the page sends is held to
// testdata/embed-protocol.json, read here.

// wireMessage is one message as the bare page received it.
type wireMessage struct {
	Source    string         `json:"source"`
	Direction string         `json:"direction"`
	Type      string         `json:"type"`
	Payload   map[string]any `json:"payload"`
	Timestamp any            `json:"timestamp"`
	Surface   *string        `json:"surface"`
}

// wireProtocol is what these tests read of embed-protocol.json.
type wireProtocol struct {
	Envelope struct {
		Source string `json:"source"`
	} `json:"envelope"`
	Events []struct {
		Type     string            `json:"type"`
		Surfaces []string          `json:"surfaces"`
		Payload  map[string]string `json:"payload"`
	} `json:"events"`
}

// barePage frames one platform URL and records every message from the
// platform's origin, unfiltered, in window.__msgs.
const barePage = `<!doctype html><meta charset="utf-8"><title>Bare host</title>
<script>
window.__msgs = [];
addEventListener("message", (e) => { if (e.origin === %q) window.__msgs.push(e.data); });
</script>
<iframe id="embed-frame" data-embedkit src=%q width="1000" height="700"></iframe>`

// mintBare mints a session for a test viewer with a key the test adds to
// the demo's emulator.
func (s *stack) mintBare(t *testing.T, key string) string {
	t.Helper()
	body := strings.NewReader(`{"deploymentId":1,"externalId":"bare-page","userAttributes":[{"name":"region","value":"EMEA"}]}`)
	req, _ := http.NewRequest(http.MethodPost, s.emulator+"/api/v1/embed/generate-session", body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		SessionID string `json:"sessionId"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &out) != nil || out.SessionID == "" {
		t.Fatalf("generate-session: %d", resp.StatusCode)
	}
	return out.SessionID
}

// openBare serves a bare page framing the platform path (with the session
// parameter and parentOrigin added) and opens it in a new tab.
func (s *stack) openBare(t *testing.T, key, path, sessionParam string, extra url.Values) context.Context {
	t.Helper()
	var host *httptest.Server
	src := ""
	host = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, barePage, s.emulator, src)
	}))
	t.Cleanup(host.Close)
	q := url.Values{}
	for k, v := range extra {
		q[k] = v
	}
	q.Set(sessionParam, s.mintBare(t, key))
	q.Set("parentOrigin", host.URL)
	src = s.emulator + path + "?" + q.Encode()
	tab := s.session(t)
	do(t, tab, "open the bare host page", chromedp.Navigate(host.URL))
	return tab
}

// messages returns what the bare page of tab has received.
func messages(t *testing.T, tab context.Context) []wireMessage {
	t.Helper()
	raw, err := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify(window.__msgs)`))
	if err != nil {
		t.Fatal(err)
	}
	var out []wireMessage
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitMessage waits until the bare page holds a message of type matching
// ok, and returns every message so far.
func waitMessage(t *testing.T, tab context.Context, what string, ok func(wireMessage) bool) []wireMessage {
	t.Helper()
	var last []wireMessage
	err := pollUntil(tab, func(ctx context.Context) (bool, error) {
		last = messages(t, tab)
		return slices.ContainsFunc(last, ok), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (got %d messages: %v)", what, err, len(last), types(last))
	}
	return last
}

func types(ms []wireMessage) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Type
	}
	return out
}

func isType(typ string) func(wireMessage) bool {
	return func(m wireMessage) bool { return m.Type == typ }
}

// postAction sends a documented action to the bare page's frame.
func postAction(t *testing.T, tab context.Context, s *stack, typ, payloadJSON string) {
	t.Helper()
	evalHost(t, tab, "send "+typ, fmt.Sprintf(`document.getElementById("embed-frame").contentWindow.postMessage(
		{source: "cube-embed", direction: "action", type: %q, payload: %s, timestamp: Date.now()}, %q)`, typ, payloadJSON, s.emulator))
}

// checkEnvelope holds every message to the contract: the documented source
// and direction, a numeric timestamp, a documented type sent from one of
// its surfaces, and every required payload field.
func checkEnvelope(t *testing.T, p wireProtocol, ms []wireMessage) {
	t.Helper()
	for _, m := range ms {
		i := slices.IndexFunc(p.Events, func(e struct {
			Type     string            `json:"type"`
			Surfaces []string          `json:"surfaces"`
			Payload  map[string]string `json:"payload"`
		}) bool {
			return e.Type == m.Type
		})
		if i < 0 {
			t.Errorf("the page sent %s, which is not a documented event", m.Type)
			continue
		}
		e := p.Events[i]
		if m.Source != p.Envelope.Source || m.Direction != "event" {
			t.Errorf("%s: source %q direction %q", m.Type, m.Source, m.Direction)
		}
		if _, ok := m.Timestamp.(float64); !ok {
			t.Errorf("%s: timestamp %v is not a number", m.Type, m.Timestamp)
		}
		if m.Surface == nil || !slices.Contains(e.Surfaces, *m.Surface) {
			t.Errorf("%s: surface %v, want one of %v", m.Type, m.Surface, e.Surfaces)
		}
		for field, spec := range e.Payload {
			if _, ok := m.Payload[field]; !ok && !strings.HasSuffix(spec, "?") && !strings.Contains(spec, "null") {
				t.Errorf("%s: payload lacks the required %s", m.Type, field)
			}
		}
	}
}

// testBarePage drives the platform's page without the kit: the chat
// surface's ai-query, a render failure, the URL controls, in-embed
// navigation, and the theme, colour-scheme and time-zone actions; every
// message it sends is in the contract.
func testBarePage(t *testing.T, s *stack) {
	raw, err := os.ReadFile("../../../testdata/embed-protocol.json")
	if err != nil {
		t.Fatal(err)
	}
	var proto wireProtocol
	if err := json.Unmarshal(raw, &proto); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	key := "ek_e2e_bare_" + hex.EncodeToString(b)
	if err := s.em.AddAPIKey(emulator.APIKey{Key: key, User: "admin"}); err != nil {
		t.Fatal(err)
	}

	t.Run("chat", func(t *testing.T) {
		tab := s.openBare(t, key, "/embed/chat", "sessionId", nil)
		waitMessage(t, tab, "ready", isType("cube:event:ready"))
		askChat(t, tab, "How are sales?")
		ms := waitMessage(t, tab, "a completed ai-query", func(m wireMessage) bool {
			return m.Type == "cube:event:ai-query" && m.Payload["status"] == "completed"
		})
		var statuses []any
		for _, m := range ms {
			if m.Type == "cube:event:ai-query" {
				statuses = append(statuses, m.Payload["status"])
				if m.Payload["query"] != "How are sales?" || *m.Surface != "chat" {
					t.Errorf("ai-query %v on surface %s", m.Payload, *m.Surface)
				}
			}
		}
		if !slices.Equal(statuses, []any{"submitted", "completed"}) {
			t.Errorf("ai-query statuses %v, want submitted then completed", statuses)
		}
		checkEnvelope(t, proto, ms)
	})

	t.Run("render failure", func(t *testing.T) {
		tab := s.openBare(t, key, "/embed/dashboard/broken-board", "session", nil)
		ms := waitMessage(t, tab, "a fatal render error", func(m wireMessage) bool {
			return m.Type == "cube:event:error" && m.Payload["fatal"] == true && m.Payload["context"] == "embed-render"
		})
		checkEnvelope(t, proto, ms)
		if slices.ContainsFunc(ms, isType("cube:event:dashboard-loaded")) {
			t.Error("a dashboard that failed to render reported dashboard-loaded")
		}
	})

	t.Run("controls, navigation and actions", func(t *testing.T) {
		tab := s.openBare(t, key, "/embed/dashboard/sales-overview", "session", url.Values{
			"f_sales.month":     {`{"value":["2025-01","2025-02"]}`},
			"tg_sales.month":    {"quarter"},
			"ms_sales.revenue":  {"sales.orders"},
			"f_sales.unknown":   {`{"value":"x"}`},
			"allowExport":       {"true"},
			"showDashboardMenu": {"false"},
		})
		waitMessage(t, tab, "dashboard-loaded", isType("cube:event:dashboard-loaded"))
		e := waitEmbed(t, tab, "the preset controls", func(e embedState) bool { return e.State == "ready" })
		if len(e.Rows) != 1 || e.Rows[0].Region != "EMEA" || e.Rows[0].Month != "2025-01-01" {
			t.Errorf("rows %+v, want one EMEA row for the first quarter (January and February summed)", e.Rows)
		}
		measure, err := inEmbed[string](tab, `document.getElementById("embed").dataset.measure`)
		if err != nil || measure != "orders" {
			t.Errorf("chart measure %q (%v), want orders", measure, err)
		}

		postAction(t, tab, s, "cube:action:set-filter", `{filterUrlParameter: "f_sales.month=" + encodeURIComponent(JSON.stringify({value: null}))}`)
		waitEmbed(t, tab, "the month filter cleared", func(e embedState) bool { return len(e.Rows) == 2 })

		postAction(t, tab, s, "cube:action:navigate", `{path: "/embed/dashboard/regional-performance"}`)
		waitMessage(t, tab, "navigate", isType("cube:event:navigate"))
		waitEmbed(t, tab, "the other dashboard", func(e embedState) bool { return e.Title == "Regional performance" && e.State == "ready" })
		ms := waitMessage(t, tab, "the second view", func(m wireMessage) bool {
			return m.Type == "cube:event:view" && m.Payload["publicId"] == "regional-performance"
		})
		for _, m := range ms {
			if m.Type == "cube:event:navigate" && (m.Payload["path"] != "/embed/dashboard/regional-performance" || m.Payload["previousPath"] != "/embed/dashboard/sales-overview") {
				t.Errorf("navigate payload %v", m.Payload)
			}
		}

		postAction(t, tab, s, "cube:action:set-theme", `{primaryColor: "#ff0066"}`)
		postAction(t, tab, s, "cube:action:set-color-scheme", `{scheme: "dark"}`)
		postAction(t, tab, s, "cube:action:set-timezone", `{timezone: "Asia/Tokyo"}`)
		e = waitEmbed(t, tab, "dark, Tokyo", func(e embedState) bool { return e.ColorScheme == "dark" && e.Zone == "Asia/Tokyo" })
		color, err := inEmbed[string](tab, `document.documentElement.style.getPropertyValue("--primary-color")`)
		if err != nil || color != "#ff0066" {
			t.Errorf("primary colour %q (%v), want #ff0066", color, err)
		}

		// Forged actions change nothing: another source, and an event.
		postActionRaw := func(obj string) {
			evalHost(t, tab, "send a forged message", fmt.Sprintf(`document.getElementById("embed-frame").contentWindow.postMessage(%s, %q)`, obj, s.emulator))
		}
		postActionRaw(`{source: "someone-else", direction: "action", type: "cube:action:set-color-scheme", payload: {scheme: "light"}, timestamp: Date.now()}`)
		postActionRaw(`{source: "cube-embed", direction: "event", type: "cube:action:set-color-scheme", payload: {scheme: "light"}, timestamp: Date.now()}`)
		postAction(t, tab, s, "cube:action:set-locale", `{locale: "ja-JP"}`)
		e = waitEmbed(t, tab, "ja-JP after the forged messages", func(e embedState) bool { return e.Locale == "ja-JP" })
		if e.ColorScheme != "dark" {
			t.Errorf("a forged message changed the colour scheme to %q", e.ColorScheme)
		}
		headers, err := inEmbed[string](tab, `Array.from(document.querySelectorAll("table.rows th"), (th) => th.textContent).join("|")`)
		if err != nil || headers != "地域|月|売上|注文数|更新日時" {
			t.Errorf("column headers in ja-JP: %q (%v), want them in Japanese", headers, err)
		}
		checkEnvelope(t, proto, messages(t, tab))
	})
}
