package embedkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkit/emulator"
)

// emulatorTransport serves every request with the emulator in process and
// counts them.
type emulatorTransport struct {
	emu   http.Handler
	calls int
	// status and message are the last answer's.
	status  int
	message string
}

func (e *emulatorTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	e.calls++
	rec := httptest.NewRecorder()
	e.emu.ServeHTTP(rec, r)
	resp := rec.Result()
	e.status = resp.StatusCode
	e.message = ""
	if resp.StatusCode >= 400 {
		var body struct {
			Error string `json:"error"`
		}
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &body)
		e.message = body.Error
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
	}
	resp.Request = r
	return resp, nil
}

// validateInput is one fuzz input, from which each request type takes
// its fields.
type validateInput struct {
	s1, s2, s3, s4, s5 string
	n1, n2             int64
	flag               bool
}

// validateCases are the request types FuzzValidateRequests checks, each
// with the fields its errors may name, and the call that sends it (nil
// for a request the Client never sends).
var validateCases = []struct {
	op     string
	fields []string
	build  func(in validateInput) any
	// send makes the call with the request; it returns the call's error.
	send func(c *embedkit.Client, req any) error
}{
	{"dashboard-export", []string{"dashboardId", "format", "renderAs.", "filters[", "timeGrains[", "memberSwitchers["},
		func(in validateInput) any {
			r := &embedkit.DashboardExportRequest{DashboardID: in.n1, DashboardPublicID: in.s1, Format: embedkit.ExportFormat(in.s2)}
			switch {
			case in.flag:
				ra := &embedkit.RenderAs{Type: in.s3, UserID: in.n2, EmbedTenantName: in.s5}
				if in.n2%2 == 1 {
					ra.Groups = []string{in.s5}
				}
				if strings.Contains(in.s4, "@") {
					ra.Email = in.s4
				} else {
					ra.ExternalID = in.s4
				}
				r.RenderAs = ra
			case in.n2%3 == 0 && in.s3 != "":
				r.Filters = []embedkit.DashboardFilter{{Member: in.s3, Operator: in.s4}}
			case in.n2%3 == 1 && in.s3 != "":
				r.TimeGrains = []embedkit.DashboardTimeGrain{{Member: in.s3, Grain: in.s4}}
			case in.s3 != "":
				r.MemberSwitchers = []embedkit.DashboardMemberSwitcher{{Member: in.s3, Selected: in.s4}}
			}
			return r
		},
		func(c *embedkit.Client, req any) error {
			_, err := c.SubmitDashboardExport(context.Background(), 1, req.(*embedkit.DashboardExportRequest))
			return err
		}},
	{"update-deployment", []string{"releaseChannelVersion", "releaseChannel", "cloudProvider", "template", "templateVariables", "creationMethod", "deployMode"},
		func(in validateInput) any {
			r := &embedkit.UpdateDeploymentRequest{ReleaseChannelVersion: in.s1, ReleaseChannel: in.s2, Region: in.s4}
			switch in.n1 % 4 {
			case 0:
				r.CloudProvider = in.s3
			case 1:
				r.Template = in.s3
			case 2:
				r.CreationMethod = in.s3
			default:
				r.DeployMode = in.s3
			}
			if in.flag {
				r.TemplateVariables = map[string]any{in.s4: in.s3}
			}
			if in.n2%2 == 1 {
				hold := in.flag
				r.ReleaseChannelVersionHold = &hold
			}
			return r
		},
		func(c *embedkit.Client, req any) error {
			_, err := c.UpdateDeployment(context.Background(), 1, req.(*embedkit.UpdateDeploymentRequest))
			return err
		}},
	{"audit-log-export", []string{"start", "end", "userEmail"},
		func(in validateInput) any {
			day := func(n int64) time.Time {
				// A day between the years -20000 and 20000 (a wide range,
				// so that years beyond four digits are tried), midnight
				// or not.
				t := time.Unix((n%(7_300_000))*86400-int64(3_000_000*86400), 0).UTC()
				if in.flag {
					return t
				}
				return t.Add(time.Duration(n%86400) * time.Second)
			}
			o := &embedkit.AuditLogOptions{Search: in.s1, EventName: in.s2, UserEmail: in.s3}
			if in.n1 != 0 {
				o.Start = day(in.n1)
			}
			if in.n2 != 0 {
				o.End = day(in.n2)
			}
			return o
		},
		func(c *embedkit.Client, req any) error {
			a, err := c.ExportAuditLog(context.Background(), *req.(*embedkit.AuditLogOptions))
			if err == nil {
				_ = a.Close()
			}
			return err
		}},
	{"tokens-for-meta-sync", []string{"security_context", "expires_in"},
		func(in validateInput) any {
			r := &embedkit.MetaTokenRequest{ExpiresIn: int(in.n1)}
			var sc map[string]any
			switch {
			case json.Unmarshal([]byte(in.s1), &sc) == nil:
				r.SecurityContext = sc
			case in.flag:
				r.SecurityContext = map[string]any{in.s1: in.s2}
			}
			return r
		},
		func(c *embedkit.Client, req any) error {
			_, err := c.CreateMetaToken(context.Background(), 1, "env-prod", req.(*embedkit.MetaTokenRequest))
			return err
		}},
	{"deployment-token", []string{"expiresIn"},
		func(in validateInput) any { return &embedkit.DataAPITokenRequest{ExpiresIn: int(in.n1)} },
		func(c *embedkit.Client, req any) error {
			_, err := c.CreateDataAPIToken(context.Background(), 1, req.(*embedkit.DataAPITokenRequest))
			return err
		}},
	{"staging-environment", []string{"branchName", "branchId"},
		func(in validateInput) any {
			return &embedkit.StagingEnvironmentRequest{Enabled: in.flag, BranchName: in.s1, BranchID: in.n1}
		},
		func(c *embedkit.Client, req any) error {
			_, err := c.SetStagingEnvironment(context.Background(), 1, req.(*embedkit.StagingEnvironmentRequest))
			return err
		}},
	{"dashboard controls", []string{"filters[", "timeGrains[", "memberSwitchers["},
		func(in validateInput) any {
			var v any
			if json.Unmarshal([]byte(in.s2), &v) != nil && in.s2 != "" {
				v = in.s2
			}
			c := embedkit.DashboardControls{
				Filters:         []embedkit.DashboardFilter{{Member: in.s1, Value: v}},
				TimeGrains:      []embedkit.DashboardTimeGrain{{Member: in.s3, Grain: in.s4}},
				MemberSwitchers: []embedkit.DashboardMemberSwitcher{{Member: in.s3, Selected: in.s1}},
			}
			if in.flag {
				c.Filters = append(c.Filters, embedkit.DashboardFilter{Member: in.s3, Value: in.n1})
			}
			if in.n2%2 == 0 {
				c.MemberSwitchers = nil
			}
			return &c
		},
		nil},
}

// validate calls the Validate method of req.
func validate(req any) error {
	switch r := req.(type) {
	case *embedkit.DashboardExportRequest:
		return r.Validate()
	case *embedkit.UpdateDeploymentRequest:
		return r.Validate()
	case *embedkit.AuditLogOptions:
		return r.Validate()
	case *embedkit.MetaTokenRequest:
		return r.Validate()
	case *embedkit.DataAPITokenRequest:
		return r.Validate()
	case *embedkit.StagingEnvironmentRequest:
		return r.Validate()
	case *embedkit.DashboardControls:
		return r.Validate()
	}
	panic("no Validate for " + reflect.TypeOf(req).String())
}

// dataBadRequests are the emulator's 400 answers that depend on the
// platform's data, not on the request's shape, which no client-side
// validator can foresee (the specification names each one).
var dataBadRequests = []string{
	"is not in the versions list", // a releaseChannelVersion not in the list
	"unknown channel",             // a channel the deployment has no version in
	"only shared branches",        // personal and production branches
	"is not published",            // only a published dashboard exports
	"not found",                   // groups and attributes that do not exist
	"the account limit",           // 10,000 external users
	"has type",                    // an attribute value of another type
}

// FuzzValidateRequests holds the request validators checked before a
// byte goes out to their contract, one request type per selector, with
// fields from the fuzzer: Validate never panics, gives the same answer
// twice and leaves the request as it was; its error is a
// *ValidationError of the request's operation whose every problem names
// one of the request's fields; a request it refuses makes no HTTP request
// at all (the call fails with ErrInvalidRequest); and a request it
// accepts is one the emulator does not refuse with a 400 for its shape,
// and whose 2xx answer the client reads.
// DashboardControls, which is never sent, must add parameters that parse
// back to its values.
func FuzzValidateRequests(f *testing.F) {
	type seed struct {
		sel  byte
		in   validateInput
		note string
	}
	for _, s := range []seed{
		{0, validateInput{s2: "pdf", n1: 10}, "export by id"},
		{0, validateInput{s1: "sales-overview", s2: "png"}, "export by public id"},
		{0, validateInput{s1: "sales-overview", s2: "pdf", n1: 10}, "both ids"},
		{0, validateInput{s2: "jpeg", n1: 1}, "unknown format"},
		{0, validateInput{s2: "pdf", n1: 10, s3: "EMBED_USER", s4: "viewer-1", flag: true}, "render as an embed user"},
		{0, validateInput{s2: "pdf", n1: 10, s3: "EMBED_USER", s4: "Viewer-1 ", flag: true}, "embed user id not normalised"},
		{0, validateInput{s2: "pdf", n1: 10, s3: "EMBED_USER", s4: "viewer-2", s5: "acme", flag: true}, "embed user of a tenant"},
		{0, validateInput{s2: "pdf", n1: 10, s3: "EMBED_USER", s4: "viewer-3", s5: "Bad_Tenant", n2: 1, flag: true}, "bad tenant, group"},
		{0, validateInput{s2: "pdf", n1: 13, s3: "USER", s4: "admin@example.com", flag: true}, "render as a console user"},
		{0, validateInput{s2: "pdf", n1: 14, s3: "USER", n2: 3, flag: true}, "console user by id"},
		{0, validateInput{s2: "pdf", n1: -1}, "negative id"},
		{0, validateInput{s2: "pdf", n1: 10, s3: "orders.status", s4: "equals"}, "filter"},
		{0, validateInput{s2: "pdf", n1: 1, s3: "status", s4: "like"}, "bad filter"},
		{0, validateInput{s2: "png", n1: 10, s3: "orders.created_at", s4: "week", n2: 1}, "time grain"},
		{0, validateInput{s2: "png", n1: 1, s3: "orders.count", s4: " ", n2: 2}, "blank switcher"},
		{1, validateInput{s1: "platform/runtime:v1.3.9"}, "switch by image"},
		{1, validateInput{s1: "v1.5.0-rc.1", s2: "latest"}, "switch in channel"},
		{1, validateInput{s2: "release"}, "channel only"},
		{1, validateInput{s2: "stable"}, "unknown channel"},
		{1, validateInput{s3: "aws", s4: "us-east-1"}, "cloud provider"},
		{1, validateInput{s3: "azure"}, "unknown cloud provider"},
		{1, validateInput{n1: 1, s3: "simpleCluster"}, "template"},
		{1, validateInput{n1: 2, s3: "github"}, "creation method"},
		{1, validateInput{n1: 3, s3: "cli", n2: 1, flag: true, s4: "k"}, "deploy mode, hold, variables"},
		{1, validateInput{n1: 3, flag: true}, "empty variable key"},
		{1, validateInput{s1: "1.2"}, "not a version"},
		{2, validateInput{}, "no options"},
		{2, validateInput{n1: 3_020_000, n2: 3_020_030, flag: true, s3: "admin@example.com"}, "dates"},
		{2, validateInput{n1: 3_020_030, n2: 3_020_000, flag: true}, "end before start"},
		{2, validateInput{n1: 3_020_000, n2: 3_020_030}, "times of day"},
		{2, validateInput{n1: 6_000_000, flag: true}, "year beyond 9999"},
		{2, validateInput{n1: 100, flag: true}, "negative year"},
		{2, validateInput{s3: "not an address"}, "bad email"},
		{2, validateInput{s1: "login", s2: "user.login"}, "search and event"},
		{3, validateInput{s1: `{}`}, "empty context"},
		{3, validateInput{s1: `{"tenant":"acme","roles":["a"]}`, n1: 3600}, "context and lifetime"},
		{3, validateInput{s1: "null"}, "no context"},
		{3, validateInput{s1: `{}`, n1: -1}, "negative lifetime"},
		{3, validateInput{s1: "k", s2: "v", flag: true}, "one key"},
		{4, validateInput{}, "default lifetime"},
		{4, validateInput{n1: 60}, "shortest"},
		{4, validateInput{n1: 86400}, "longest"},
		{4, validateInput{n1: 59}, "too short"},
		{4, validateInput{n1: 86401}, "too long"},
		{5, validateInput{s1: "q3-metrics", flag: true}, "shared branch"},
		{5, validateInput{n1: 2}, "branch by id"},
		{5, validateInput{s1: "dev-dana", flag: true}, "personal branch"},
		{5, validateInput{}, "neither"},
		{5, validateInput{s1: "x", n1: 2}, "both"},
		{5, validateInput{s1: " \t"}, "blank name"},
		{5, validateInput{s1: "a\x00b"}, "control character"},
		{5, validateInput{n1: -4}, "negative id"},
		{6, validateInput{s1: "orders.status", s2: `"completed"`, s3: "orders.created_at", s4: "week", n2: 1}, "controls"},
		{6, validateInput{s1: "orders.status", s2: `"a"`, s3: "orders.status", s4: "day", flag: true, n2: 1}, "filter preset twice"},
		{6, validateInput{s1: "status", s3: "orders.created_at", s4: "Week"}, "bad member, no value, upper-case grain"},
		{6, validateInput{s1: "a.b", s2: "\xff", s3: "c.d", s4: "day", n2: 2}, "invalid UTF-8"},
	} {
		_ = s.note
		f.Add(s.sel, s.in.s1, s.in.s2, s.in.s3, s.in.s4, s.in.s5, s.in.n1, s.in.n2, s.in.flag)
	}

	newEmulator := func(tb testing.TB) http.Handler {
		emu, err := emulator.New(emulator.DemoFixture())
		if err != nil {
			tb.Fatal(err)
		}
		return emu
	}
	rt := &emulatorTransport{emu: newEmulator(f)}
	sent := 0
	c, err := embedkit.New("http://127.0.0.1:1", "ek_dev_only_admin_all",
		embedkit.WithHTTPClient(&http.Client{Transport: rt}), embedkit.WithRetry(embedkit.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, sel byte, s1, s2, s3, s4, s5 string, n1, n2 int64, flag bool) {
		tc := validateCases[int(sel)%len(validateCases)]
		in := validateInput{s1, s2, s3, s4, s5, n1, n2, flag}
		req := tc.build(in)
		before := tc.build(in)
		verr := validate(req)
		if !reflect.DeepEqual(req, before) {
			t.Fatalf("%s: Validate changed the request: %+v, was %+v", tc.op, req, before)
		}
		if again := validate(req); (again == nil) != (verr == nil) || (verr != nil && again.Error() != verr.Error()) {
			t.Fatalf("%s: Validate answered %v, then %v", tc.op, verr, again)
		}
		if verr != nil {
			var ve *embedkit.ValidationError
			if !errors.As(verr, &ve) || !errors.Is(verr, embedkit.ErrInvalidRequest) {
				t.Fatalf("%s: error %v (%T) is not a *ValidationError", tc.op, verr, verr)
			}
			if ve.Op != tc.op || len(ve.Problems) == 0 {
				t.Fatalf("%s: error has op %q and %d problems", tc.op, ve.Op, len(ve.Problems))
			}
			for _, p := range ve.Problems {
				if p.Rule == "" || !namesField(p.Field, tc.fields) {
					t.Fatalf("%s: problem %q names no field of the request", tc.op, p)
				}
			}
			if !strings.HasPrefix(verr.Error(), "embedkit: invalid "+tc.op+" request: ") {
				t.Fatalf("%s: error text %q", tc.op, verr)
			}
		}
		if tc.send == nil {
			checkControls(t, req.(*embedkit.DashboardControls), verr)
			return
		}
		// Every accepted request leaves state behind (tokens, export
		// jobs); a fresh platform now and then keeps a run's inputs
		// equally cheap.
		if sent++; sent%2000 == 0 {
			rt.emu = newEmulator(t)
		}
		rt.calls, rt.status, rt.message = 0, 0, ""
		err := tc.send(c, req)
		if verr != nil {
			if rt.calls != 0 {
				t.Fatalf("%s: a request Validate refuses (%v) made %d HTTP requests", tc.op, verr, rt.calls)
			}
			if !errors.Is(err, embedkit.ErrInvalidRequest) {
				t.Fatalf("%s: a request Validate refuses (%v) failed with %v", tc.op, verr, err)
			}
			return
		}
		if rt.calls != 1 {
			t.Fatalf("%s: a request Validate accepts made %d HTTP requests (error %v)", tc.op, rt.calls, err)
		}
		if rt.status < 300 && err != nil {
			t.Fatalf("%s: the emulator answered %d, the client failed: %v", tc.op, rt.status, err)
		}
		if rt.status == http.StatusBadRequest && !dataRule(rt.message) {
			t.Fatalf("%s: the client accepts a request the emulator refuses with 400 %q: %+v", tc.op, rt.message, req)
		}
	})
}

// namesField reports whether field is one of fields, or starts with one
// ending in '.' or '['.
func namesField(field string, fields []string) bool {
	for _, f := range fields {
		if field == f || (strings.HasSuffix(f, ".") || strings.HasSuffix(f, "[")) && strings.HasPrefix(field, f) {
			return true
		}
	}
	return false
}

// dataRule reports whether an emulator 400 message is one of
// dataBadRequests.
func dataRule(msg string) bool {
	for _, m := range dataBadRequests {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// checkControls holds accepted controls to their URL form: AddTo sets a
// parameter per control that parses back to its value.
func checkControls(t *testing.T, c *embedkit.DashboardControls, verr error) {
	t.Helper()
	q := url.Values{}
	err := c.AddTo(q)
	if (err == nil) != (verr == nil) {
		t.Fatalf("AddTo answered %v, Validate %v", err, verr)
	}
	if err != nil {
		if len(q) != 0 {
			t.Fatalf("AddTo refused the controls but set %v", q)
		}
		return
	}
	back, perr := url.ParseQuery(q.Encode())
	if perr != nil {
		t.Fatalf("parameters %q do not parse: %v", q.Encode(), perr)
	}
	for _, fl := range c.Filters {
		var got struct{ Value any }
		if err := json.Unmarshal([]byte(back.Get("f_"+fl.Member)), &got); err != nil {
			t.Fatalf("filter %s: %q is not JSON", fl.Member, back.Get("f_"+fl.Member))
		}
		want, _ := json.Marshal(fl.Value)
		have, _ := json.Marshal(got.Value)
		if string(want) != string(have) {
			t.Fatalf("filter %s reads back %s, want %s", fl.Member, have, want)
		}
	}
	for _, g := range c.TimeGrains {
		if back.Get("tg_"+g.Member) != g.Grain {
			t.Fatalf("time grain %s reads back %q, want %q", g.Member, back.Get("tg_"+g.Member), g.Grain)
		}
	}
	for _, m := range c.MemberSwitchers {
		if back.Get("ms_"+m.Member) != m.Selected {
			t.Fatalf("member switcher %s reads back %q, want %q", m.Member, back.Get("ms_"+m.Member), m.Selected)
		}
	}
}
