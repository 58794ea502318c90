package embedkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The secrets FuzzDecodeResponses watches for in errors: the Client's API
// key, and the session id an exchange sends (the id is the credential).
const (
	decodeFuzzKey     = "fuzz-api-key-0123456789"
	decodeFuzzSession = "12345678901234567890123456789012"
)

// bodyTransport answers every request with status 200 and one body.
type bodyTransport struct {
	body  []byte
	calls int
}

func (b *bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b.calls++
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Type": {"application/json"}},
		ContentLength: int64(len(b.body)),
		Body:          io.NopCloser(bytes.NewReader(b.body)),
		Request:       r,
	}, nil
}

// The oracles read an object answer's envelope with unwrapData, the
// decoders' own rule ({"data": {...}} when the body spells the key
// plainly), which TestUnwrapData holds; what they check is every field
// the kit reads from it.

// decodeOps are the calls whose success answers FuzzDecodeResponses
// feeds, each with the decoder it runs and the oracle its value is held
// to. The first byte of an input picks one.
var decodeOps = []struct {
	name string
	// secret marks a call whose success body carries a secret: its decode
	// errors withhold the body.
	secret bool
	// run calls the Client with the body as the platform's answer.
	run func(c *Client) (any, error)
	// check holds the decoded value to what the body says.
	check func(t *testing.T, body []byte, v any)
	// respec is the decoded value written back in the specification's
	// shape, as a body the same call must decode to the same value.
	respec func(v any) any
}{
	{"versions", false,
		func(c *Client) (any, error) { return c.ListVersions(context.Background(), 1) },
		func(t *testing.T, body []byte, v any) {
			items := oracleList(t, body, "versions")
			got := v.([]DeploymentVersion)
			oracleLen(t, len(got), items)
			for i, it := range items {
				g := got[i]
				oracleString(t, it, "releaseChannelVersion", g.ReleaseChannelVersion)
				oracleString(t, it, "version", g.Version)
				oracleString(t, it, "releaseChannel", g.ReleaseChannel)
				oracleBool(t, it, "isLatestInChannel", g.IsLatestInChannel)
				oracleBool(t, it, "isCurrent", g.IsCurrent)
			}
		},
		func(v any) any { return map[string]any{"data": v} }},
	{"deployments", false,
		func(c *Client) (any, error) { return c.ListDeployments(context.Background(), ListOptions{}) },
		func(t *testing.T, body []byte, v any) {
			page := v.(*DeploymentPage)
			items := oracleList(t, body, "deployments")
			oracleLen(t, len(page.Deployments), items)
			for i, it := range items {
				d := page.Deployments[i]
				oracleInt(t, it, "id", d.ID)
				oracleString(t, it, "name", d.Name)
				want := oracleTime(t, it, "created_at")
				if want.IsZero() {
					want = oracleTime(t, it, "createdAt")
				}
				if !d.CreatedAt.Equal(want) {
					t.Fatalf("created_at decoded as %v, body says %v", d.CreatedAt, want)
				}
			}
			oraclePagination(t, body, page.Pagination)
		},
		func(v any) any {
			p := v.(*DeploymentPage)
			return map[string]any{"data": map[string]any{"deployments": p.Deployments}, "pagination": p.Pagination}
		}},
	{"environments", false,
		func(c *Client) (any, error) {
			return c.ListEnvironments(context.Background(), 1, EnvironmentListOptions{})
		},
		func(t *testing.T, body []byte, v any) {
			page := v.(*EnvironmentPage)
			items := oracleList(t, body, "environments")
			oracleLen(t, len(page.Environments), items)
			for i, it := range items {
				e := page.Environments[i]
				oracleStringOrNumber(t, it, "id", e.ID)
				oracleString(t, it, "name", e.Name)
				oracleString(t, it, "type", string(e.Type))
				oracleCredentials(t, it, e)
			}
			oraclePagination(t, body, page.Pagination)
		},
		func(v any) any {
			p := v.(*EnvironmentPage)
			return map[string]any{"data": map[string]any{"environments": p.Environments}, "pagination": p.Pagination}
		}},
	{"tenant-groups", false,
		func(c *Client) (any, error) {
			return c.ListTenantGroups(context.Background(), "acme", CursorOptions{})
		},
		func(t *testing.T, body []byte, v any) {
			page := v.(*TenantGroupPage)
			items := oracleList(t, body, "groups")
			oracleLen(t, len(page.Items), items)
			for i, it := range items {
				g := page.Items[i]
				oracleStringOrNumber(t, it, "id", g.ID)
				oracleString(t, it, "name", g.Name)
				oracleString(t, it, "description", g.Description)
				if !bytes.Equal(bytes.TrimSpace(g.Raw), bytes.TrimSpace(it)) {
					t.Fatalf("group %d Raw %q, body's item %q", i, g.Raw, it)
				}
			}
			if pi, ok := oracleField(t, body, "pageInfo", false); ok && !isNull(pi) {
				oracleString(t, pi, "endCursor", page.PageInfo.EndCursor)
				oracleBool(t, pi, "hasNextPage", page.PageInfo.HasNextPage)
			}
		},
		func(v any) any {
			p := v.(*TenantGroupPage)
			return map[string]any{"items": p.Items, "pageInfo": p.PageInfo}
		}},
	{"export-job", false,
		func(c *Client) (any, error) {
			return c.SubmitDashboardExport(context.Background(), 1, &DashboardExportRequest{DashboardID: 1, Format: FormatPDF})
		},
		func(t *testing.T, body []byte, v any) {
			job := v.(*ExportJob)
			obj := unwrapData(body)
			oracleStringOrNumber(t, obj, "jobId", job.JobID)
			if job.JobID == "" {
				t.Fatal("a job without an id decoded")
			}
			if want := oracleTime(t, obj, "expiresAt"); !job.ExpiresAt.Equal(want) {
				t.Fatalf("expiresAt decoded as %v, body says %v", job.ExpiresAt, want)
			}
		},
		func(v any) any { return v }},
	{"export-status", false,
		func(c *Client) (any, error) {
			return c.DashboardExportStatus(context.Background(), 1, "job-1")
		},
		func(t *testing.T, body []byte, v any) {
			st := v.(*ExportStatus)
			obj := unwrapData(body)
			oracleString(t, obj, "status", string(st.Status))
			if st.Status == "" {
				t.Fatal("a status without a status decoded")
			}
			oracleString(t, obj, "error", st.Error)
			oracleString(t, obj, "contentType", st.ContentType)
			raw, ok := oracleField(t, obj, "progress", false)
			switch {
			case !ok || isNull(raw):
				if st.Progress != nil {
					t.Fatalf("progress %v decoded from a body without one", *st.Progress)
				}
			default:
				var want float64
				if err := json.Unmarshal(raw, &want); err != nil {
					t.Fatalf("progress %s decoded though it is not a number", raw)
				}
				if st.Progress == nil || *st.Progress != want {
					t.Fatalf("progress decoded as %v, body says %v", st.Progress, want)
				}
			}
		},
		func(v any) any { return v }},
	{"meta-token", true,
		func(c *Client) (any, error) {
			return c.CreateMetaToken(context.Background(), 1, "env-1", &MetaTokenRequest{SecurityContext: map[string]any{}})
		},
		func(t *testing.T, body []byte, v any) {
			tok := v.(*MetaToken)
			obj := unwrapData(body)
			oracleString(t, obj, "token", tok.Token)
			if tok.Token == "" {
				t.Fatal("a meta token without a token decoded")
			}
			for _, f := range []struct {
				got         time.Time
				name, other string
			}{{tok.CreatedAt, "created_at", "createdAt"}, {tok.ExpiresAt, "expires_at", "expiresAt"}} {
				want := oracleTime(t, obj, f.name)
				if want.IsZero() {
					want = oracleTime(t, obj, f.other)
				}
				if !f.got.Equal(want) {
					t.Fatalf("%s decoded as %v, body says %v", f.name, f.got, want)
				}
			}
		},
		func(v any) any { return map[string]any{"data": v} }},
	{"data-api-token", true,
		func(c *Client) (any, error) { return c.CreateDataAPIToken(context.Background(), 1, nil) },
		func(t *testing.T, body []byte, v any) {
			tok := v.(*DataAPIToken)
			// decodeDataAPIToken reads a map: keys match exactly.
			obj := unwrapData(body)
			want := ""
			for _, k := range dataAPITokenFields {
				if raw, ok := oracleField(t, obj, k, true); ok && !isNull(raw) {
					var s string
					if json.Unmarshal(raw, &s) != nil {
						t.Fatalf("%s %s is not a string, yet decoded", k, raw)
					}
					if s != "" {
						want = s
						break
					}
				}
			}
			if tok.Token != want || want == "" {
				t.Fatalf("token decoded as %q, body says %q", tok.Token, want)
			}
		},
		func(v any) any { return map[string]any{"cubeApiToken": v.(*DataAPIToken).Token} }},
	{"branch", false,
		func(c *Client) (any, error) {
			return c.SetStagingEnvironment(context.Background(), 1, &StagingEnvironmentRequest{Enabled: true, BranchName: "feature"})
		},
		func(t *testing.T, body []byte, v any) {
			br := v.(*Branch)
			obj := unwrapData(body)
			oracleInt(t, obj, "id", br.ID)
			oracleString(t, obj, "name", br.Name)
			oracleString(t, obj, "parentBranch", br.ParentBranch)
			oracleString(t, obj, "lastHash", br.LastHash)
			oracleBool(t, obj, "isStagingEnvironmentEnabled", br.IsStagingEnvironmentEnabled)
		},
		func(v any) any { return map[string]any{"data": v} }},
	{"update-deployment", false,
		func(c *Client) (any, error) {
			return c.UpdateDeployment(context.Background(), 1, &UpdateDeploymentRequest{ReleaseChannel: "latest"})
		},
		func(t *testing.T, body []byte, v any) {
			s := v.(*DeploymentSettings)
			obj := unwrapData(body)
			oracleInt(t, obj, "id", s.ID)
			oracleString(t, obj, "name", s.Name)
			oracleString(t, obj, "releaseChannel", s.ReleaseChannel)
			oracleString(t, obj, "releaseChannelVersion", s.ReleaseChannelVersion)
			oracleBool(t, obj, "releaseChannelVersionHold", s.ReleaseChannelVersionHold)
			if !bytes.Equal(s.Raw, bytes.TrimSpace(obj)) {
				t.Fatalf("Raw %q, body's object %q", s.Raw, obj)
			}
		},
		func(v any) any { return v }},
	{"generate-session", true,
		func(c *Client) (any, error) {
			return c.GenerateSession(context.Background(), &GenerateSessionRequest{DeploymentID: 1, ExternalID: "viewer"})
		},
		func(t *testing.T, body []byte, v any) {
			s := v.(*Session)
			if id, ok := plainSessionID(body); ok {
				if s.SessionID != id {
					t.Fatalf("sessionId decoded as %q, body says %q", s.SessionID, id)
				}
				return
			}
			oracleStringOrNumber(t, unwrapData(body), "sessionId", s.SessionID)
			if s.SessionID == "" {
				t.Fatal("a session without an id decoded")
			}
		},
		func(v any) any { return map[string]any{"sessionId": v.(*Session).SessionID} }},
	{"exchange-session", true,
		func(c *Client) (any, error) { return c.ExchangeSession(context.Background(), decodeFuzzSession) },
		func(t *testing.T, body []byte, v any) {
			tok := v.(*EmbedToken)
			oracleString(t, unwrapData(body), "token", tok.Token)
			if tok.Token == "" {
				t.Fatal("an embed token without a token decoded")
			}
		},
		func(v any) any { return map[string]any{"token": v.(*EmbedToken).Token} }},
}

// FuzzDecodeResponses feeds the decoders of the platform's success
// answers, through the Client's own calls, every body a broken or hostile
// platform could send (the first byte picks the call). A body either
// decodes to a value whose fields are what the body says (read again here
// with plain encoding/json, field by field, in each shape the platform
// documents) and that, written back in the specification's shape, decodes
// to the same value again; or it fails with an error matching ErrUnexpectedResponse that
// names the call and never repeats the API key or an exchanged session
// id; a call whose answer carries a secret withholds the body.
func FuzzDecodeResponses(f *testing.F) {
	for i := range decodeOps {
		for _, body := range decodeSeeds[i] {
			f.Add(byte(i), []byte(body))
		}
		f.Add(byte(i), []byte(`{"data":`+decodeFuzzKey+`}`))
		f.Add(byte(i), []byte(`"`+decodeFuzzKey+`"`))
	}
	for _, s := range []string{"", "null", "[]", "{}", `{"data":null}`, `{"items":{}}`, "\xff\xfe"} {
		f.Add(byte(0), []byte(s))
	}
	f.Fuzz(func(t *testing.T, sel byte, body []byte) {
		op := decodeOps[int(sel)%len(decodeOps)]
		rt := &bodyTransport{body: body}
		c, err := New("https://platform.example.com", decodeFuzzKey,
			WithHTTPClient(&http.Client{Transport: rt}), WithRetry(RetryPolicy{MaxAttempts: 1}),
			WithClock(func() time.Time { return time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC) }))
		if err != nil {
			t.Fatal(err)
		}
		v, err := op.run(c)
		if rt.calls != 1 {
			t.Fatalf("%s: %d requests, want 1", op.name, rt.calls)
		}
		if err == nil {
			op.check(t, body, v)
			respec, merr := json.Marshal(op.respec(v))
			if merr != nil {
				t.Fatalf("%s: %+v does not encode: %v", op.name, v, merr)
			}
			rt.body, rt.calls = respec, 0
			again, err := op.run(c)
			if err != nil {
				t.Fatalf("%s: %+v written back as %s does not decode: %v", op.name, v, respec, err)
			}
			if a, b := mustJSON(t, v), mustJSON(t, again); a != b {
				t.Fatalf("%s: %s, written back as %s, decodes to %s", op.name, a, respec, b)
			}
			return
		}
		msg := err.Error()
		if !errors.Is(err, ErrUnexpectedResponse) {
			t.Fatalf("%s: error does not match ErrUnexpectedResponse: %v", op.name, err)
		}
		if !strings.HasPrefix(msg, "embedkit: ") || !strings.Contains(msg, "/api/v1/") {
			t.Fatalf("%s: error does not name the package and the call: %q", op.name, msg)
		}
		secrets := []string{decodeFuzzKey}
		if op.name == "exchange-session" {
			// The id is this call's credential; in another call's answer
			// the same digits are just text.
			secrets = append(secrets, decodeFuzzSession)
		}
		for _, secret := range secrets {
			if strings.Contains(msg, secret) {
				t.Fatalf("%s: error repeats a secret: %q", op.name, msg)
			}
		}
		if op.secret && !strings.Contains(msg, "body withheld") {
			t.Fatalf("%s: the answer carries a secret, yet the error does not withhold it: %q", op.name, msg)
		}
		if !utf8.ValidString(msg) {
			t.Fatalf("%s: error is not valid UTF-8: %q", op.name, msg)
		}
	})
}

// mustJSON is v in JSON, to compare two decoded values field by field
// (their times by the text they write).
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%+v does not encode: %v", v, err)
	}
	return string(b)
}

// decodeSeeds are the specification's example answers and the platform
// schema's, per decodeOps entry, with edge cases.
var decodeSeeds = [][]string{
	{ // versions
		`{"data":[{"releaseChannelVersion":"cubejs/cube:v1.4.2","version":"1.4.2","releaseChannel":"latest","isLatestInChannel":true,"isCurrent":false}]}`,
		`{"items":[{"releaseChannelVersion":"v1.3.0","version":"1.3.0","releaseChannel":"release","isLatestInChannel":false,"isCurrent":true}]}`,
		`{"data":{"versions":[{"version":"1.0.0","VERSION":"2.0.0"}]}}`,
	},
	{ // deployments
		`{"data":{"deployments":[{"id":"1","name":"Sales","created_at":"2026-01-02T03:04:05Z"}]},"pagination":{"offset":0,"limit":20,"total":1}}`,
		`{"items":[{"id":42,"name":"Ops","createdAt":"2026-01-02"}],"count":7}`,
		`{"data":[{"id":"12.0","name":null,"created_at":""}]}`,
		`{"data":{"deployments":[{"id":"x"}]}}`,
	},
	{ // environments
		`{"data":{"environments":[{"id":"e1","name":"prod","type":"production","api_credentials":{"rest":{"url":"https://x.example.com/cubejs-api/v1"},"sql":{"host":"sql.example.com","port":5432}}}]},"pagination":{"offset":0,"limit":20,"total":1}}`,
		`{"items":[{"id":7,"name":"staging","type":"staging","api_credentials":[{"type":"REST","url":"https://r"},{"type":"sql","host":"h","port":"5432"}]}]}`,
		`{"items":[{"id":"e","api_credentials":"x"}]}`,
	},
	{ // tenant groups
		`{"items":[{"id":"g1","name":"sales","description":"Sales team"}],"pageInfo":{"hasNextPage":true,"endCursor":"c1"}}`,
		`{"data":[{"id":3,"name":"ops","description":null}],"count":1}`,
	},
	{ // export job
		`{"jobId":"job-1","expiresAt":"2026-04-01T09:05:00Z"}`,
		`{"data":{"jobId":12,"expiresAt":"2026-04-01 09:05:00"}}`,
		`{"jobId":"","expiresAt":"soon"}`,
	},
	{ // export status
		`{"status":"completed","contentType":"application/pdf"}`,
		`{"status":"failed","error":"render timed out"}`,
		`{"data":{"status":"processing","progress":0.5}}`,
		`{"status":"pending","progress":"half"}`,
	},
	{ // meta token
		`{"data":{"token":"eyJhbGciOiJIUzI1NiJ9.e30.sig","created_at":"2026-04-01T09:00:00Z","expires_at":"2026-04-02T09:00:00Z"}}`,
		`{"token":"t","createdAt":"2026-04-01T09:00:00.5+02:00","expiresAt":"2026-04-02"}`,
		`{"data":{"token":"` + decodeFuzzKey + `","expires_at":"` + decodeFuzzKey + `"}}`,
	},
	{ // data API token
		`{"cubeApiToken":"eyJhbGciOiJIUzI1NiJ9.e30.sig"}`,
		`{"data":{"token":"t"}}`,
		`{"cubeApiToken":"","token":"t2"}`,
		`{"cubeApiToken":12345678901234567890123456789012}`,
	},
	{ // branch
		`{"data":{"id":5,"name":"feature","parentBranch":"main","lastHash":"abc123","isStagingEnvironmentEnabled":true}}`,
		`{"id":"6","name":"dev","parentBranch":null,"lastHash":null,"isStagingEnvironmentEnabled":null}`,
	},
	{ // update deployment
		`{"id":1,"name":"Sales","releaseChannel":"latest","releaseChannelVersion":"cubejs/cube:v1.4.2","releaseChannelVersionHold":false,"templateVariables":{"a":"b"}}`,
		`{"data":{"id":"1","name":"Sales"}}`,
	},
	{ // generate session
		`{"sessionId":"0123456789abcdef0123456789abcdef"}`,
		`{"data":{"sessionId":"0123456789abcdef0123456789abcdef"}}`,
		`{"sessionId":["` + decodeFuzzKey + `"]}`,
	},
	{ // exchange session
		`{"token":"eyJhbGciOiJIUzI1NiJ9.e30.sig"}`,
		`{"data":{"token":"t"}}`,
		`{"token":` + decodeFuzzSession + `}`,
	},
}

// oracleField returns the value of key in the JSON object obj as
// encoding/json assigns it: the last member whose name matches, exactly
// (a map) or ignoring case (a struct field).
func oracleField(t *testing.T, obj []byte, key string, exact bool) (json.RawMessage, bool) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var val json.RawMessage
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		if name == key || (!exact && strings.EqualFold(name, key)) {
			val, found = raw, true
		}
	}
	return val, found
}

// oracleList returns the items of a list answer: "items", else "data" as
// a list, else "data"'s key.
func oracleList(t *testing.T, body []byte, key string) []json.RawMessage {
	t.Helper()
	var list []json.RawMessage
	from := func(raw []byte) []json.RawMessage {
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("a list decoded from %q, which is no list: %v", raw, err)
		}
		return list
	}
	if items, ok := oracleField(t, body, "items", false); ok && !isNull(items) {
		return from(items)
	}
	data, ok := oracleField(t, body, "data", false)
	if !ok || isNull(data) {
		t.Fatalf("a list decoded from a body without items or data: %q", body)
	}
	if d := bytes.TrimSpace(data); d[0] == '[' {
		return from(d)
	}
	inner, ok := oracleField(t, data, key, true)
	if !ok || isNull(inner) {
		t.Fatalf("a list decoded from a data object without %s: %q", key, data)
	}
	return from(inner)
}

// oracleLen fails unless the decoder kept every item.
func oracleLen(t *testing.T, got int, items []json.RawMessage) {
	t.Helper()
	if got != len(items) {
		t.Fatalf("%d items decoded, the body holds %d", got, len(items))
	}
}

// oracleString holds got to the string the object says for key ("" when
// absent or null).
func oracleString(t *testing.T, obj []byte, key, got string) {
	t.Helper()
	raw, ok := oracleField(t, obj, key, false)
	want := ""
	if ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s %s is not a string, yet decoded (as %q)", key, raw, got)
		}
	}
	if got != want {
		t.Fatalf("%s decoded as %q, body says %q", key, got, want)
	}
}

// oracleStringOrNumber holds got to key's string, or to its number's
// text.
func oracleStringOrNumber(t *testing.T, obj []byte, key, got string) {
	t.Helper()
	raw, ok := oracleField(t, obj, key, false)
	if ok {
		var n json.Number
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var x any
		if d.Decode(&x) == nil {
			if num, isNum := x.(json.Number); isNum {
				n = num
				if got != n.String() {
					t.Fatalf("%s decoded as %q, body says %s", key, got, n)
				}
				return
			}
		}
	}
	oracleString(t, obj, key, got)
}

// oracleInt holds got to key's integer, sent as a number or a decimal
// string (0 when absent, null or "").
func oracleInt(t *testing.T, obj []byte, key string, got int64) {
	t.Helper()
	var want int64
	oracleIntInto(t, obj, key, &want)
	if got != want {
		t.Fatalf("%s decoded as %d, body says %d", key, got, want)
	}
}

// oracleBool holds got to key's boolean (false when absent or null).
func oracleBool(t *testing.T, obj []byte, key string, got bool) {
	t.Helper()
	raw, ok := oracleField(t, obj, key, false)
	want := false
	if ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s %s is not a boolean, yet decoded", key, raw)
		}
	}
	if got != want {
		t.Fatalf("%s decoded as %v, body says %s", key, got, raw)
	}
}

// oracleTime is key's timestamp, in the forms the package documents:
// RFC 3339, a date and time without a zone (UTC) with a 'T' or a space,
// or a date; zero when absent, null or "". (time.Parse reads each form a
// little loosely: a space of the layout takes several, an hour one digit.)
func oracleTime(t *testing.T, obj []byte, key string) time.Time {
	t.Helper()
	raw, ok := oracleField(t, obj, key, false)
	if !ok || isNull(raw) {
		return time.Time{}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s %s is not a string, yet decoded", key, raw)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm
		}
	}
	t.Fatalf("%s %q is no ISO 8601 timestamp, yet decoded", key, s)
	return time.Time{}
}

// oraclePagination holds p to the body's pagination, or its count.
func oraclePagination(t *testing.T, body []byte, p Pagination) {
	t.Helper()
	var want Pagination
	if raw, ok := oracleField(t, body, "pagination", false); ok && !isNull(raw) {
		oracleIntField := func(key string) int {
			v, ok := oracleField(t, raw, key, false)
			var n int
			if ok && !isNull(v) {
				if err := json.Unmarshal(v, &n); err != nil {
					t.Fatalf("pagination.%s %s is not an integer, yet decoded", key, v)
				}
			}
			return n
		}
		want = Pagination{Offset: oracleIntField("offset"), Limit: oracleIntField("limit"), Total: oracleIntField("total")}
	} else if raw, ok := oracleField(t, body, "count", false); ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &want.Total); err != nil {
			t.Fatalf("count %s is not an integer, yet decoded", raw)
		}
	}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("pagination decoded as %+v, body says %+v", p, want)
	}
}

// oracleCredentials holds an environment's REST URL and SQL host and port
// to its api_credentials, an object or an array of typed entries.
func oracleCredentials(t *testing.T, item []byte, e Environment) {
	t.Helper()
	raw, ok := oracleField(t, item, "api_credentials", false)
	var want Environment
	if ok && !isNull(raw) {
		switch bytes.TrimSpace(raw)[0] {
		case '{':
			if r, ok := oracleField(t, raw, "rest", false); ok && !isNull(r) {
				want.RESTURL = oracleStr(t, r, "url")
			}
			if s, ok := oracleField(t, raw, "sql", false); ok && !isNull(s) {
				want.SQLHost = oracleStr(t, s, "host")
				want.SQLPort = oracleNum(t, s, "port")
			}
		case '[':
			var list []json.RawMessage
			if err := json.Unmarshal(raw, &list); err != nil {
				t.Fatalf("api_credentials %s is no list, yet decoded", raw)
			}
			for _, c := range list {
				switch strings.ToLower(oracleStr(t, c, "type")) {
				case "rest":
					want.RESTURL = oracleStr(t, c, "url")
				case "sql":
					want.SQLHost, want.SQLPort = oracleStr(t, c, "host"), oracleNum(t, c, "port")
				}
			}
		default:
			t.Fatalf("api_credentials %s is neither an object nor a list, yet decoded", raw)
		}
	}
	if e.RESTURL != want.RESTURL || e.SQLHost != want.SQLHost || e.SQLPort != want.SQLPort {
		t.Fatalf("api_credentials decoded as %q %q %d, body says %q %q %d", e.RESTURL, e.SQLHost, e.SQLPort, want.RESTURL, want.SQLHost, want.SQLPort)
	}
}

// oracleStr is key's string ("" when absent or null).
func oracleStr(t *testing.T, obj []byte, key string) string {
	t.Helper()
	var s string
	if raw, ok := oracleField(t, obj, key, false); ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s %s is not a string, yet decoded", key, raw)
		}
	}
	return s
}

// oracleNum is key's integer, a number or a decimal string.
func oracleNum(t *testing.T, obj []byte, key string) int {
	t.Helper()
	var n int64
	oracleIntInto(t, obj, key, &n)
	return int(n)
}

// oracleIntInto reads key's integer like oracleInt.
func oracleIntInto(t *testing.T, obj []byte, key string, n *int64) {
	t.Helper()
	raw, ok := oracleField(t, obj, key, false)
	if !ok || isNull(raw) {
		return
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(bytes.TrimSpace(raw))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) {
			t.Fatalf("%s %s is not an integer, yet decoded", key, raw)
		}
		v = int64(f)
	}
	*n = v
}
