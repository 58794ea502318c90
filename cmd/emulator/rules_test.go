package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The platform's rules, checked against the standalone command over HTTP
// only: the same account the emulator package's own tests use, the control
// API for time, faults and state, and nothing reached in-process.

// rulesFixture is the account of the emulator package's own tests (its
// testFixture), read from the one file both use.
var rulesFixture = func() string {
	b, err := os.ReadFile(filepath.Join("..", "..", "embedkit", "emulator", "testdata", "rules-fixture.json"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// cmdEmulator is a running emulator command.
type cmdEmulator struct {
	base   string
	client *http.Client
	cmd    *exec.Cmd
	stderr string        // path of the file the command's stderr goes to
	exited chan struct{} // closed once the command has exited
	err    error         // the command's exit, read after exited is closed
}

// reply is one answered request.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// secretMember matches the JSON members that carry a credential.
var secretMember = regexp.MustCompile(`"(token|sessionId)"\s*:\s*"[^"]*"`)

// shown is a body fit for a test log: credentials are masked.
func shown(b []byte) string {
	const limit = 600
	s := secretMember.ReplaceAllString(string(b), `"$1":"(masked)"`)
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

// startEmulatorCommand runs bin as "emulator -listen 127.0.0.1:0 args..."
// and waits for its first stdout line.
func startEmulatorCommand(t *testing.T, bin string, args ...string) *cmdEmulator {
	t.Helper()
	errPath := filepath.Join(t.TempDir(), "stderr.log")
	errFile, err := os.Create(errPath)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	cmd := exec.Command(bin, append([]string{"-listen", "127.0.0.1:0"}, args...)...)
	cmd.Stderr = errFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &cmdEmulator{
		client: &http.Client{Timeout: 10 * time.Second},
		cmd:    cmd,
		stderr: errPath,
		exited: make(chan struct{}),
	}
	t.Cleanup(func() {
		select {
		case <-e.exited:
		default:
			_ = cmd.Process.Kill()
			<-e.exited
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, stdout)
		e.err = cmd.Wait()
		close(e.exited)
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("no first line; stderr: %s", e.stderrText())
	}
	base, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "listening on ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") || strings.HasSuffix(base, ":0") {
		t.Fatalf("first line %q; stderr: %s", line, e.stderrText())
	}
	e.base = base
	return e
}

func (e *cmdEmulator) stderrText() string {
	data, err := os.ReadFile(e.stderr)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// stop sends SIGTERM and expects a clean exit.
func (e *cmdEmulator) stop(t *testing.T) {
	t.Helper()
	if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.exited:
		if e.err != nil {
			t.Errorf("exit after SIGTERM: %v; stderr: %s", e.err, e.stderrText())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("did not exit after SIGTERM")
	}
}

// do sends a request. cred "" sends no Authorization header, a value with a
// space is sent as the whole header, anything else as "Bearer <cred>".
// body "" sends no body.
func (e *cmdEmulator) do(t *testing.T, method, path, cred, body string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case cred == "":
	case strings.Contains(cred, " "):
		req.Header.Set("Authorization", cred)
	default:
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}
}

// expect sends a request and checks its status.
func (e *cmdEmulator) expect(t *testing.T, status int, method, path, cred, body string) reply {
	t.Helper()
	r := e.do(t, method, path, cred, body)
	if r.status != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, shown(r.body))
	}
	return r
}

// expectJSON sends a request, checks its status and decodes the body into v.
func (e *cmdEmulator) expectJSON(t *testing.T, status int, method, path, cred, body string, v any) {
	t.Helper()
	decodeJSON(t, e.expect(t, status, method, path, cred, body).body, v)
}

// reset puts the account back to rulesFixture, the clock to the base clock,
// and clears faults and the request log.
func (e *cmdEmulator) reset(t *testing.T) {
	t.Helper()
	e.expect(t, http.StatusNoContent, "POST", "/_emulator/reset", "", rulesFixture)
}

// advance moves the virtual clock forward.
func (e *cmdEmulator) advance(t *testing.T, d string) {
	t.Helper()
	var out struct {
		Now string `json:"now"`
	}
	e.expectJSON(t, http.StatusOK, "POST", "/_emulator/clock", "", `{"advance":"`+d+`"}`, &out)
	if _, err := time.Parse(time.RFC3339Nano, out.Now); err != nil {
		t.Fatalf("clock answer %q: %v", out.Now, err)
	}
}

// now reads the virtual clock.
func (e *cmdEmulator) now(t *testing.T) time.Time {
	t.Helper()
	var out struct {
		Now string `json:"now"`
	}
	e.expectJSON(t, http.StatusOK, "GET", "/_emulator/clock", "", "", &out)
	now, err := time.Parse(time.RFC3339Nano, out.Now)
	if err != nil {
		t.Fatalf("clock answer %q: %v", out.Now, err)
	}
	return now
}

// generate mints a session with the unscoped admin key and returns its id.
func (e *cmdEmulator) generate(t *testing.T, body string) string {
	t.Helper()
	var out struct {
		SessionID string `json:"sessionId"`
	}
	e.expectJSON(t, http.StatusOK, "POST", "/api/v1/embed/generate-session", "ek_admin_all", body, &out)
	if !sessionIDPattern.MatchString(out.SessionID) {
		t.Fatalf("session id of %d characters is not 32 lower-case hex characters", len(out.SessionID))
	}
	return out.SessionID
}

// exchange trades a session id for its embed token, expecting status.
func (e *cmdEmulator) exchange(t *testing.T, status int, id string) string {
	t.Helper()
	r := e.expect(t, status, "POST", "/api/v1/embed/session/token", "", `{"sessionId":"`+id+`"}`)
	if status != http.StatusOK {
		wantError(t, r, "", "session")
		return ""
	}
	var out map[string]string
	decodeJSON(t, r.body, &out)
	if len(out) != 1 || strings.Count(out["token"], ".") != 2 {
		t.Fatalf("exchange answer is not {\"token\": <JWT>}: %s", shown(r.body))
	}
	return out["token"]
}

// revoke revokes a session id with the unscoped admin key.
func (e *cmdEmulator) revoke(t *testing.T, id string) {
	t.Helper()
	e.expect(t, http.StatusNoContent, "POST", "/api/v1/embed/session/revoke", "ek_admin_all", `{"sessionId":"`+id+`"}`)
}

// sessionStates reads /_emulator/sessions as id → state.
func (e *cmdEmulator) sessionStates(t *testing.T) map[string]sessionInfo {
	t.Helper()
	var out struct {
		Sessions []sessionInfo `json:"sessions"`
	}
	e.expectJSON(t, http.StatusOK, "GET", "/_emulator/sessions", "", "", &out)
	states := make(map[string]sessionInfo, len(out.Sessions))
	for _, s := range out.Sessions {
		states[s.SessionID] = s
	}
	return states
}

type sessionInfo struct {
	SessionID    string `json:"sessionId"`
	State        string `json:"state"`
	ExternalID   string `json:"externalId"`
	DeploymentID int64  `json:"deploymentId"`
	CreatedAt    string `json:"createdAt"`
}

var sessionIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func decodeJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", shown(data), err)
	}
}

// wantError checks an error answer: Content-Type application/json and the
// body {"error": msg}, msg not empty, equal to exact when set and
// containing part.
func wantError(t *testing.T, r reply, exact, part string) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("error Content-Type %q", ct)
	}
	var out struct {
		Error string `json:"error"`
	}
	decodeJSON(t, r.body, &out)
	if out.Error == "" {
		t.Errorf("error answer without a message: %s", shown(r.body))
	}
	if exact != "" && out.Error != exact {
		t.Errorf("error %q, want exactly %q", out.Error, exact)
	}
	if !strings.Contains(out.Error, part) {
		t.Errorf("error %q does not contain %q", out.Error, part)
	}
}

// rule is one request and what the platform answers to it.
type rule struct {
	name                     string
	method, path, cred, body string
	status                   int
	exact, part              string                  // error message: whole, or a part of it
	check                    func(*testing.T, reply) // further checks of a success
}

// checkRules runs each rule as a subtest against e.
func checkRules(t *testing.T, e *cmdEmulator, rules []rule) {
	t.Helper()
	for _, rl := range rules {
		t.Run(rl.name, func(t *testing.T) {
			r := e.expect(t, rl.status, rl.method, rl.path, rl.cred, rl.body)
			if r.status >= 400 {
				wantError(t, r, rl.exact, rl.part)
			}
			if rl.check != nil {
				rl.check(t, r)
			}
		})
	}
}

func TestEmulatorCommandRules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command; not run with -short")
	}
	bin := build(t, ".")
	fixture := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(fixture, []byte(rulesFixture), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startEmulatorCommand(t, bin, "-fixture", fixture)
	for _, area := range []struct {
		name string
		run  func(*testing.T, *cmdEmulator)
	}{
		{"auth", authRules},
		{"generate-session", generateSessionRules},
		{"session lifecycle", sessionLifecycleRules},
		{"deployments", deploymentRules},
		{"audit export", auditRules},
		{"dashboard exports", exportRules},
		{"spec and path-only operations", specRules},
		{"faults and request log", faultRules},
	} {
		t.Run(area.name, func(t *testing.T) {
			e.reset(t)
			area.run(t, e)
		})
	}
	e.stop(t)
}

const gen1 = `{"deploymentId":1,"externalId":"u1"}`

func authRules(t *testing.T, e *cmdEmulator) {
	checkRules(t, e, []rule{
		{name: "no credential", method: "POST", path: "/api/v1/embed/generate-session", body: gen1,
			status: 401, part: "missing credential"},
		{name: "unknown key", method: "POST", path: "/api/v1/embed/generate-session", cred: "ek_nope", body: gen1,
			status: 401, part: "invalid credential"},
		{name: "no credential on a list", method: "GET", path: "/api/v1/deployments",
			status: 401},
		{name: "Api-Key scheme on generate-session", method: "POST", path: "/api/v1/embed/generate-session", cred: "Api-Key ek_admin_all", body: gen1,
			status: 200, check: sessionIDAnswer},
		{name: "Api-Key scheme refused on a list", method: "GET", path: "/api/v1/deployments", cred: "Api-Key ek_admin_all",
			status: 401, part: "malformed"},
		{name: "personal key of a non-admin on generate-session", method: "POST", path: "/api/v1/embed/generate-session", cred: "ek_personal", body: gen1,
			status: 403},
		{name: "personal key of an admin on generate-session", method: "POST", path: "/api/v1/embed/generate-session", cred: "ek_admin_personal", body: gen1,
			status: 403, part: "personal"},
		{name: "scoped key outside its scope", method: "POST", path: "/api/v1/embed/generate-session", cred: "ek_admin_d1", body: `{"deploymentId":2,"externalId":"u1"}`,
			status: 403, part: "not scoped to deployment 2"},
		{name: "scoped key outside its scope on environments", method: "GET", path: "/api/v1/deployments/2/environments", cred: "ek_admin_d1",
			status: 403},
		{name: "deactivated user", method: "POST", path: "/api/v1/embed/generate-session", cred: "ek_gone", body: gen1,
			status: 401, part: "deactivated"},
	})
	t.Run("revoke with a scoped key of another deployment", func(t *testing.T) {
		id := e.generate(t, gen1)
		e.expect(t, http.StatusNoContent, "POST", "/api/v1/embed/session/revoke", "Api-Key ek_admin_d2", `{"sessionId":"`+id+`"}`)
		if st := e.sessionStates(t)[id].State; st != "revoked" {
			t.Errorf("state after revoke %q, want revoked", st)
		}
		e.exchange(t, http.StatusUnauthorized, id)
	})
}

func sessionIDAnswer(t *testing.T, r reply) {
	t.Helper()
	var out map[string]string
	decodeJSON(t, r.body, &out)
	if len(out) != 1 || !sessionIDPattern.MatchString(out["sessionId"]) {
		t.Errorf("answer is not {\"sessionId\": <32 lower-case hex>}: %s", shown(r.body))
	}
}

func generateSessionRules(t *testing.T, e *cmdEmulator) {
	const path = "/api/v1/embed/generate-session"
	g := func(name, body string, status int, exact, part string) rule {
		return rule{name: name, method: "POST", path: path, cred: "ek_admin_all", body: body, status: status, exact: exact, part: part}
	}
	success := g("success", `{"deploymentId":1,"externalId":"viewer-1","groups":["sales"],"userAttributes":[{"name":"region","value":"EMEA"}]}`, 200, "", "")
	success.check = sessionIDAnswer
	checkRules(t, e, []rule{
		success,
		g("unknown groups", `{"deploymentId":1,"externalId":"u","groups":["sales","ghosts","zombies","ghosts"]}`, 400,
			"Groups with names ghosts, zombies not found", ""),
		g("unknown attribute", `{"deploymentId":1,"externalId":"u","userAttributes":[{"name":"shoe","value":"x"}]}`, 400,
			"User attributes not found", ""),
		g("creator-mode attribute type change", `{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"globex","userAttributeDefinitions":[{"name":"tier","type":"number"}]}`, 400,
			"cannot change type", ""),
		g("creator-mode attribute of the tenant's type", `{"deploymentId":1,"externalId":"c","creatorMode":true,"embedTenantName":"globex","userAttributeDefinitions":[{"name":"tier","type":"string"}],"userAttributes":[{"name":"tier","value":"gold"}]}`, 200,
			"", ""),
		g("externalId not lowercase", `{"deploymentId":1,"externalId":"User-1"}`, 400, "", "externalId: must be lowercase"),
		g("externalId not trimmed", `{"deploymentId":1,"externalId":" u1"}`, 400, "", "externalId: must be trimmed"),
		g("internalId with groups", `{"deploymentId":1,"internalId":"admin","groups":["sales"]}`, 400, "", "groups: not allowed with internalId"),
		g("both ids", `{"deploymentId":1,"externalId":"u","internalId":"admin"}`, 400, "", "exactly one of externalId or internalId"),
		g("unknown field", `{"deploymentId":1,"externalId":"u","ephemeralTtlSeconds":5}`, 400, "", "ephemeralTtlSeconds: unknown field"),
		g("unknown deployment", `{"deploymentId":99,"externalId":"u"}`, 404, "", "deployment 99 not found"),
		g("unknown branch", `{"deploymentId":1,"externalId":"u","branchName":"nope"}`, 404, "", `branchName: "nope" is not a branch`),
		g("branch nothing serves", `{"deploymentId":1,"externalId":"u","branchName":"q3-metrics"}`, 400, "", "not served"),
		g("served personal branch", `{"deploymentId":1,"externalId":"u","branchName":"dev-dana"}`, 200, "", ""),
	})
}

func sessionLifecycleRules(t *testing.T, e *cmdEmulator) {
	t.Run("exchange works once", func(t *testing.T) {
		id := e.generate(t, `{"deploymentId":1,"externalId":"once"}`)
		if st := e.sessionStates(t)[id].State; st != "unexchanged" {
			t.Fatalf("state before the exchange %q", st)
		}
		tok := e.exchange(t, http.StatusOK, id)
		if st := e.sessionStates(t)[id].State; st != "exchanged" {
			t.Fatalf("state after the exchange %q", st)
		}
		e.exchange(t, http.StatusUnauthorized, id)
		var ctx struct {
			ExternalID   string `json:"externalId"`
			DeploymentID int64  `json:"deploymentId"`
			Tenant       string `json:"tenant"`
		}
		e.expectJSON(t, http.StatusOK, "GET", "/embed/api/context", "Bearer "+tok, "", &ctx)
		if ctx.ExternalID != "once" || ctx.DeploymentID != 1 || ctx.Tenant != "acme" {
			t.Errorf("context %+v", ctx)
		}
	})
	t.Run("exchange after the window", func(t *testing.T) {
		id := e.generate(t, `{"deploymentId":1,"externalId":"late"}`)
		e.advance(t, "5m1s")
		e.exchange(t, http.StatusUnauthorized, id)
		if st := e.sessionStates(t)[id].State; st != "expired" {
			t.Errorf("state %q, want expired", st)
		}
	})
	t.Run("revoke an unexchanged id", func(t *testing.T) {
		id := e.generate(t, `{"deploymentId":1,"externalId":"cut"}`)
		e.revoke(t, id)
		e.exchange(t, http.StatusUnauthorized, id)
		e.revoke(t, id)
	})
	t.Run("revoke an unknown id", func(t *testing.T) {
		e.revoke(t, "ffffffffffffffffffffffffffffffff")
		e.revoke(t, "not-even-hex")
	})
	t.Run("revoked token rejected by the context endpoint", func(t *testing.T) {
		id := e.generate(t, `{"deploymentId":1,"externalId":"ended"}`)
		tok := e.exchange(t, http.StatusOK, id)
		e.expect(t, http.StatusOK, "GET", "/embed/api/context", "Bearer "+tok, "")
		e.revoke(t, id)
		r := e.expect(t, http.StatusUnauthorized, "GET", "/embed/api/context", "Bearer "+tok, "")
		wantError(t, r, "", "revoked")
		r = e.expect(t, http.StatusUnauthorized, "POST", "/api/v1/embed/session/revoke", "Bearer "+tok, `{"sessionId":"`+id+`"}`)
		wantError(t, r, "", "revoked")
	})
	t.Run("session states listed", func(t *testing.T) {
		expired := e.generate(t, `{"deploymentId":1,"externalId":"s-expired"}`)
		e.advance(t, "5m1s")
		fresh := e.generate(t, `{"deploymentId":1,"externalId":"s-fresh"}`)
		used := e.generate(t, `{"deploymentId":1,"externalId":"s-used"}`)
		e.exchange(t, http.StatusOK, used)
		cut := e.generate(t, `{"deploymentId":1,"externalId":"s-cut"}`)
		e.revoke(t, cut)
		states := e.sessionStates(t)
		for _, want := range []struct{ id, externalID, state string }{
			{expired, "s-expired", "expired"},
			{fresh, "s-fresh", "unexchanged"},
			{used, "s-used", "exchanged"},
			{cut, "s-cut", "revoked"},
		} {
			got, ok := states[want.id]
			if !ok {
				t.Errorf("session of %s not listed", want.externalID)
				continue
			}
			if got.State != want.state || got.ExternalID != want.externalID || got.DeploymentID != 1 {
				t.Errorf("session of %s: state %q, externalId %q, deploymentId %d; want state %q",
					want.externalID, got.State, got.ExternalID, got.DeploymentID, want.state)
			}
			if _, err := time.Parse(time.RFC3339Nano, got.CreatedAt); err != nil {
				t.Errorf("session of %s: createdAt %q: %v", want.externalID, got.CreatedAt, err)
			}
		}
	})
}

type envList struct {
	Data struct {
		Environments []struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"environments"`
	} `json:"data"`
	Pagination struct {
		Offset, Limit, Total int
	} `json:"pagination"`
}

func envIDs(l envList) []string {
	ids := []string{}
	for _, env := range l.Data.Environments {
		ids = append(ids, env.ID+":"+env.Type)
	}
	return ids
}

// currentVersion reads the versions list of deployment 1 and returns the
// version in effect.
func currentVersion(t *testing.T, e *cmdEmulator) string {
	t.Helper()
	var out struct {
		Data []struct {
			Version   string `json:"version"`
			IsCurrent bool   `json:"isCurrent"`
		} `json:"data"`
	}
	e.expectJSON(t, http.StatusOK, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", "", &out)
	if len(out.Data) != 3 {
		t.Fatalf("%d versions listed, want 3", len(out.Data))
	}
	cur := []string{}
	for _, v := range out.Data {
		if v.IsCurrent {
			cur = append(cur, v.Version)
		}
	}
	if len(cur) != 1 {
		t.Fatalf("current versions %v, want exactly one", cur)
	}
	return cur[0]
}

func deploymentRules(t *testing.T, e *cmdEmulator) {
	const (
		metaPath    = "/api/v1/deployments/1/environments/env-prod/tokens-for-meta-sync"
		dataPath    = "/api/v1/deployments/1/token"
		stagingPath = "/build/api/v1/deployments/1/branches/staging-environment"
	)
	tokenOnly := func(t *testing.T, r reply) {
		t.Helper()
		var out map[string]string
		decodeJSON(t, r.body, &out)
		if len(out) != 1 || strings.Count(out["cubeApiToken"], ".") != 2 {
			t.Errorf("answer is not {\"cubeApiToken\": <JWT>}: %s", shown(r.body))
		}
	}
	switchTo := func(version string, hold bool) func(*testing.T, reply) {
		return func(t *testing.T, r reply) {
			t.Helper()
			var st struct {
				ID                        int64  `json:"id"`
				ReleaseChannelVersion     string `json:"releaseChannelVersion"`
				ReleaseChannelVersionHold bool   `json:"releaseChannelVersionHold"`
			}
			decodeJSON(t, r.body, &st)
			if st.ID != 1 || st.ReleaseChannelVersion != "platform/runtime:v"+version || st.ReleaseChannelVersionHold != hold {
				t.Errorf("settings %+v, want version %s hold %v", st, version, hold)
			}
			if cur := currentVersion(t, e); cur != version {
				t.Errorf("current version %s, want %s", cur, version)
			}
		}
	}
	checkRules(t, e, []rule{
		{name: "deployments page", method: "GET", path: "/api/v1/deployments?limit=1&offset=1", cred: "ek_admin_all", status: 200,
			check: func(t *testing.T, r reply) {
				var out struct {
					Data struct {
						Deployments []struct {
							ID   string `json:"id"`
							Name string `json:"name"`
						} `json:"deployments"`
					} `json:"data"`
					Pagination struct {
						Offset, Limit, Total int
					} `json:"pagination"`
				}
				decodeJSON(t, r.body, &out)
				d := out.Data.Deployments
				if len(d) != 1 || d[0].ID != "2" || d[0].Name != "Finance" {
					t.Errorf("deployments %+v, want only 2 Finance", d)
				}
				if p := out.Pagination; p.Offset != 1 || p.Limit != 1 || p.Total != 3 {
					t.Errorf("pagination %+v, want offset 1 limit 1 total 3", p)
				}
			}},
		{name: "deployments bad limit", method: "GET", path: "/api/v1/deployments?limit=x", cred: "ek_admin_all", status: 400, part: "limit"},
		{name: "production environments", method: "GET", path: "/api/v1/deployments/1/environments?type=production", cred: "ek_admin_all", status: 200,
			check: func(t *testing.T, r reply) {
				var out envList
				decodeJSON(t, r.body, &out)
				if ids := envIDs(out); len(ids) != 1 || ids[0] != "env-prod:production" {
					t.Errorf("environments %v, want only env-prod", ids)
				}
			}},
		{name: "unknown environment type", method: "GET", path: "/api/v1/deployments/1/environments?type=qa", cred: "ek_admin_all", status: 400, part: "type"},
		{name: "metadata token default lifetime", method: "POST", path: metaPath, cred: "ek_admin_all", body: `{"security_context":{"team":"a"}}`, status: 200,
			check: func(t *testing.T, r reply) {
				var out struct {
					Data struct {
						Token     string `json:"token"`
						CreatedAt string `json:"created_at"`
						ExpiresAt string `json:"expires_at"`
					} `json:"data"`
				}
				decodeJSON(t, r.body, &out)
				created, err1 := time.Parse(time.RFC3339, out.Data.CreatedAt)
				expires, err2 := time.Parse(time.RFC3339, out.Data.ExpiresAt)
				if err1 != nil || err2 != nil || strings.Count(out.Data.Token, ".") != 2 {
					t.Fatalf("token answer %s", shown(r.body))
				}
				if d := expires.Sub(created); d != 86400*time.Second {
					t.Errorf("lifetime %v, want 86400 s", d)
				}
			}},
		{name: "metadata token without security_context", method: "POST", path: metaPath, cred: "ek_admin_all", body: `{}`, status: 400, part: "security_context: is required"},
		{name: "data token expiresIn 59", method: "POST", path: dataPath, cred: "ek_admin_all", body: `{"expiresIn":59}`, status: 400, part: "expiresIn"},
		{name: "data token expiresIn 60", method: "POST", path: dataPath, cred: "ek_admin_all", body: `{"expiresIn":60}`, status: 200, check: tokenOnly},
		{name: "data token default", method: "POST", path: dataPath, cred: "ek_admin_all", status: 200, check: tokenOnly},
		{name: "versions listed", method: "GET", path: "/api/v1/deployments/1/versions", cred: "ek_admin_all", status: 200,
			check: func(t *testing.T, _ reply) {
				if cur := currentVersion(t, e); cur != "1.4.2" {
					t.Errorf("current version %s, want 1.4.2", cur)
				}
			}},
		{name: "version switch by semver", method: "PUT", path: "/api/v1/deployments/1", cred: "ek_admin_all", body: `{"releaseChannelVersion":"1.3.9"}`, status: 200,
			check: switchTo("1.3.9", true)},
		// The channel's latest leaves the hold the switch before set.
		{name: "version switch by v-semver", method: "PUT", path: "/api/v1/deployments/1", cred: "ek_admin_all", body: `{"releaseChannelVersion":"v1.4.2"}`, status: 200,
			check: switchTo("1.4.2", true)},
		{name: "version switch with surrounding white space", method: "PUT", path: "/api/v1/deployments/1", cred: "ek_admin_all", body: `{"releaseChannelVersion":" 1.3.9 "}`, status: 400, part: "releaseChannelVersion"},
		{name: "deployMode outside its enum", method: "PUT", path: "/api/v1/deployments/1", cred: "ek_admin_all", body: `{"deployMode":"push"}`, status: 400, part: "deployMode: must be one of git, cli"},
		{name: "version switch by image", method: "PUT", path: "/api/v1/deployments/1", cred: "ek_admin_all", body: `{"releaseChannelVersion":"platform/runtime:v1.3.9"}`, status: 200,
			check: switchTo("1.3.9", true)},
		{name: "version switch to an unknown version", method: "PUT", path: "/api/v1/deployments/1", cred: "ek_admin_all", body: `{"releaseChannelVersion":"9.9.9"}`, status: 400, part: "releaseChannelVersion",
			check: func(t *testing.T, _ reply) {
				if cur := currentVersion(t, e); cur != "1.3.9" {
					t.Errorf("a rejected switch moved the version to %s", cur)
				}
			}},
		{name: "staging environment on a shared branch", method: "PUT", path: stagingPath, cred: "ek_admin_all", body: `{"enabled":true,"branchName":"q3-metrics"}`, status: 200,
			check: func(t *testing.T, r reply) {
				var out struct {
					Data struct {
						Name    string `json:"name"`
						Enabled bool   `json:"isStagingEnvironmentEnabled"`
					} `json:"data"`
				}
				decodeJSON(t, r.body, &out)
				if out.Data.Name != "q3-metrics" || !out.Data.Enabled {
					t.Errorf("branch %s", shown(r.body))
				}
				var l envList
				e.expectJSON(t, http.StatusOK, "GET", "/api/v1/deployments/1/environments?type=staging", "ek_admin_all", "", &l)
				if ids := envIDs(l); len(ids) != 1 || ids[0] != "staging-q3-metrics:staging" {
					t.Errorf("staging environments %v, want staging-q3-metrics", ids)
				}
			}},
		{name: "staging environment on a personal branch", method: "PUT", path: stagingPath, cred: "ek_admin_all", body: `{"enabled":true,"branchName":"dev-dana"}`, status: 400, part: "only shared branches"},
		{name: "branch served once staged", method: "POST", path: "/api/v1/embed/generate-session", cred: "ek_admin_all", body: `{"deploymentId":1,"externalId":"u","branchName":"q3-metrics"}`, status: 200,
			check: sessionIDAnswer},
	})
}

func auditRules(t *testing.T, e *cmdEmulator) {
	checkRules(t, e, []rule{
		{name: "export", method: "GET", path: "/api/v1/audit-logs/export", cred: "ek_admin_all", status: 200,
			check: func(t *testing.T, r reply) {
				if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
					t.Errorf("Content-Type %q", ct)
				}
				if cd := r.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, `filename="audit-log.csv"`) {
					t.Errorf("Content-Disposition %q", cd)
				}
				lines := strings.Split(strings.TrimSuffix(string(r.body), "\n"), "\n")
				if len(lines) != 4 || lines[0] != "time,eventName,userEmail,data" ||
					lines[1] != `2026-03-01T10:00:00Z,Logged in,dana@acme.test,"{""ip"":""203.0.113.7""}"` {
					t.Errorf("csv:\n%s", r.body)
				}
			}},
		{name: "export filtered", method: "GET", path: "/api/v1/audit-logs/export?eventName=Logged%20in&userEmail=ADMIN@acme.test", cred: "ek_admin_all", status: 200,
			check: func(t *testing.T, r reply) {
				want := "time,eventName,userEmail,data\n" + `2026-03-02T11:00:00Z,Logged in,admin@acme.test,"{""ip"":""198.51.100.4""}"` + "\n"
				if string(r.body) != want {
					t.Errorf("csv:\n%s", r.body)
				}
			}},
		{name: "bad start", method: "GET", path: "/api/v1/audit-logs/export?start=yesterday", cred: "ek_admin_all", status: 400, part: "start"},
		{name: "personal key", method: "GET", path: "/api/v1/audit-logs/export", cred: "ek_personal", status: 403},
		{name: "admin without AuditLogManage", method: "GET", path: "/api/v1/audit-logs/export", cred: "ek_ops", status: 403, part: "AuditLogManage"},
	})
}

type exportStatus struct {
	Status      string  `json:"status"`
	Progress    *int    `json:"progress"`
	Error       *string `json:"error"`
	ContentType *string `json:"contentType"`
}

const exportsPath = "/api/v1/deployments/1/dashboard-exports"

// submitExport submits an export with the admin key and checks the answer
// {jobId, expiresAt}, expiresAt 5 minutes after submission.
func submitExport(t *testing.T, e *cmdEmulator, body string) string {
	t.Helper()
	before := e.now(t).Truncate(time.Second)
	var out struct {
		JobID     string `json:"jobId"`
		ExpiresAt string `json:"expiresAt"`
	}
	e.expectJSON(t, http.StatusOK, "POST", exportsPath, "ek_admin_all", body, &out)
	after := e.now(t)
	expires, err := time.Parse(time.RFC3339, out.ExpiresAt)
	if out.JobID == "" || err != nil {
		t.Fatalf("submit answer jobId %q expiresAt %q", out.JobID, out.ExpiresAt)
	}
	if expires.Before(before.Add(5*time.Minute)) || expires.After(after.Add(5*time.Minute)) {
		t.Errorf("expiresAt %s, want 5 minutes after submission (%s to %s)", out.ExpiresAt, before, after)
	}
	return out.JobID
}

// pollUntilDone polls a job until it is completed or failed; the third
// poll at the latest gives the final status, and the statuses seen before
// follow pending, processing.
func pollUntilDone(t *testing.T, e *cmdEmulator, job string) exportStatus {
	t.Helper()
	order := map[string]int{"pending": 0, "processing": 1, "completed": 2, "failed": 2}
	last := -1
	for poll := 1; poll <= 3; poll++ {
		var st exportStatus
		e.expectJSON(t, http.StatusOK, "GET", exportsPath+"/"+job, "ek_admin_all", "", &st)
		rank, ok := order[st.Status]
		if !ok || rank < last {
			t.Fatalf("poll %d: status %q after rank %d", poll, st.Status, last)
		}
		last = rank
		switch st.Status {
		case "pending":
			if st.Progress == nil || *st.Progress != 0 {
				t.Errorf("poll %d: pending with progress %v", poll, st.Progress)
			}
		case "processing":
			if st.Progress == nil || *st.Progress != 50 {
				t.Errorf("poll %d: processing with progress %v", poll, st.Progress)
			}
		default:
			return st
		}
	}
	t.Fatal("three polls and the job is not finished")
	return exportStatus{}
}

func exportRules(t *testing.T, e *cmdEmulator) {
	t.Run("submit, poll and download a PNG", func(t *testing.T) {
		job := submitExport(t, e, `{"dashboardId":10,"format":"png"}`)
		st := pollUntilDone(t, e, job)
		if st.Status != "completed" || st.Progress == nil || *st.Progress != 100 ||
			st.ContentType == nil || *st.ContentType != "image/png" || st.Error != nil {
			t.Fatalf("final status %+v", st)
		}
		r := e.expect(t, http.StatusOK, "GET", exportsPath+"/"+job+"/download", "ek_admin_all", "")
		if ct := r.header.Get("Content-Type"); ct != "image/png" {
			t.Errorf("Content-Type %q", ct)
		}
		if cd := r.header.Get("Content-Disposition"); cd != `attachment; filename="dashboard.png"` {
			t.Errorf("Content-Disposition %q", cd)
		}
		if !bytes.HasPrefix(r.body, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("download starts %q, not the PNG signature", r.body[:min(8, len(r.body))])
		}
		// Only the submitting user sees the job; dana manages the dashboard but did not submit.
		wantError(t, e.expect(t, http.StatusNotFound, "GET", exportsPath+"/"+job, "ek_dana", ""), "", "")
		e.expect(t, http.StatusNotFound, "GET", exportsPath+"/"+job+"/download", "ek_dana", "")
		// Another key of the same user does.
		e.expect(t, http.StatusOK, "GET", exportsPath+"/"+job, "ek_admin_d1", "")
	})
	t.Run("a board that fails to render", func(t *testing.T) {
		job := submitExport(t, e, `{"dashboardPublicId":"broken-board","format":"png"}`)
		st := pollUntilDone(t, e, job)
		if st.Status != "failed" || st.Error == nil || *st.Error != "widget 3 failed to load" {
			t.Fatalf("final status %+v", st)
		}
		r := e.expect(t, http.StatusUnprocessableEntity, "GET", exportsPath+"/"+job+"/download", "ek_admin_all", "")
		wantError(t, r, "", "widget 3 failed to load")
	})
	t.Run("download while rendering", func(t *testing.T) {
		job := submitExport(t, e, `{"dashboardPublicId":"sales-overview","format":"pdf"}`)
		e.expect(t, http.StatusConflict, "GET", exportsPath+"/"+job+"/download", "ek_admin_all", "")
	})
	checkRules(t, e, []rule{
		{name: "both dashboard ids", method: "POST", path: exportsPath, cred: "ek_admin_all",
			body: `{"dashboardId":10,"dashboardPublicId":"sales-overview","format":"png"}`, status: 400, part: "exactly one of dashboardId or dashboardPublicId"},
		{name: "unpublished dashboard", method: "POST", path: exportsPath, cred: "ek_admin_all",
			body: `{"dashboardPublicId":"draft-board","format":"png"}`, status: 400, part: "published"},
		{name: "format", method: "POST", path: exportsPath, cred: "ek_admin_all",
			body: `{"dashboardId":10,"format":"svg"}`, status: 400, part: "format: must be png or pdf"},
		{name: "no manage access", method: "POST", path: exportsPath, cred: "ek_admin_all",
			body: `{"dashboardPublicId":"ops-only","format":"png"}`, status: 403, part: "manage access"},
		{name: "dashboard of another deployment", method: "POST", path: exportsPath, cred: "ek_admin_all",
			body: `{"dashboardId":20,"format":"png"}`, status: 404, part: "not found in deployment 1"},
		{name: "unknown job", method: "GET", path: exportsPath + "/no-such-job", cred: "ek_admin_all", status: 404},
	})
}

func specRules(t *testing.T, e *cmdEmulator) {
	checkRules(t, e, []rule{
		{name: "path-only operation", method: "GET", path: "/api/v1/users/me", cred: "ek_admin_all", status: 501,
			exact: "not implemented by the emulator",
			check: func(t *testing.T, r reply) {
				var out map[string]any
				decodeJSON(t, r.body, &out)
				if len(out) != 1 {
					t.Errorf("body %s, want only the error member", shown(r.body))
				}
			}},
		{name: "path-only operation without credential", method: "GET", path: "/api/v1/users/me", status: 401},
		{name: "unknown path", method: "GET", path: "/api/v1/nothing-here", cred: "ek_admin_all", status: 404, part: "not found"},
		{name: "wrong method", method: "DELETE", path: "/api/v1/deployments", cred: "ek_admin_all", status: 405, part: "not allowed",
			check: func(t *testing.T, r reply) {
				if r.header.Get("Allow") == "" {
					t.Error("405 without Allow")
				}
			}},
		{name: "spec", method: "GET", path: "/api/v1/spec", cred: "ek_dana", status: 200,
			check: func(t *testing.T, r reply) {
				var doc struct {
					OpenAPI string                     `json:"openapi"`
					Paths   map[string]json.RawMessage `json:"paths"`
				}
				decodeJSON(t, r.body, &doc)
				if doc.OpenAPI != "3.1.0" || doc.Paths["/api/v1/embed/generate-session"] == nil {
					t.Errorf("openapi %q, %d paths", doc.OpenAPI, len(doc.Paths))
				}
			}},
	})
}

func faultRules(t *testing.T, e *cmdEmulator) {
	t.Run("one injected 503", func(t *testing.T) {
		e.expect(t, http.StatusNoContent, "POST", "/_emulator/faults", "",
			`{"faults":[{"method":"GET","path":"/api/v1/deployments","status":503,"times":1}]}`)
		e.expect(t, http.StatusOK, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", "")
		r := e.expect(t, http.StatusServiceUnavailable, "GET", "/api/v1/deployments", "ek_admin_all", "")
		wantError(t, r, "injected fault", "")
		e.expect(t, http.StatusOK, "GET", "/api/v1/deployments", "ek_admin_all", "")
	})
	t.Run("faults cleared", func(t *testing.T) {
		e.expect(t, http.StatusNoContent, "POST", "/_emulator/faults", "",
			`{"faults":[{"path":"/api/v1/deployments/*","status":500}]}`)
		e.expect(t, http.StatusInternalServerError, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", "")
		e.expect(t, http.StatusNoContent, "DELETE", "/_emulator/faults", "", "")
		e.expect(t, http.StatusOK, "GET", "/api/v1/deployments/1/versions", "ek_admin_all", "")
	})
	t.Run("bad fault", func(t *testing.T) {
		r := e.expect(t, http.StatusBadRequest, "POST", "/_emulator/faults", "", `{"faults":[{"path":"/x"}]}`)
		wantError(t, r, "", "give status, reset or delay")
	})
	t.Run("request log", func(t *testing.T) {
		var out struct {
			Requests []struct {
				Method string `json:"method"`
				Path   string `json:"path"`
				Status int    `json:"status"`
				Time   string `json:"time"`
			} `json:"requests"`
		}
		e.expectJSON(t, http.StatusOK, "GET", "/_emulator/requests", "", "", &out)
		type entry struct {
			method, path string
			status       int
		}
		want := []entry{
			{"GET", "/api/v1/deployments/1/versions", 200},
			{"GET", "/api/v1/deployments", 503},
			{"GET", "/api/v1/deployments", 200},
			{"GET", "/api/v1/deployments/1/versions", 500},
			{"GET", "/api/v1/deployments/1/versions", 200},
		}
		got := []entry{}
		for _, r := range out.Requests {
			got = append(got, entry{r.Method, r.Path, r.Status})
			if _, err := time.Parse(time.RFC3339Nano, r.Time); err != nil {
				t.Errorf("time %q: %v", r.Time, err)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("request log %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("request %d: %v, want %v", i, got[i], want[i])
			}
		}
	})
}
