package embedkit

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestFlexInt64(t *testing.T) {
	tests := map[string]int64{`12`: 12, `"12"`: 12, `" 7 "`: 7, `null`: 0, `""`: 0, `3.0`: 3, `-4`: -4}
	for in, want := range tests {
		var f flexInt64
		if err := json.Unmarshal([]byte(in), &f); err != nil || int64(f) != want {
			t.Errorf("%s: %d, %v", in, f, err)
		}
	}
	for _, bad := range []string{`"x"`, `1.5`, `true`, `{}`, `"1e400"`} {
		var f flexInt64
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestFlexString(t *testing.T) {
	tests := map[string]string{`"a"`: "a", `12`: "12", `null`: "", `1.50`: "1.50"}
	for in, want := range tests {
		var f flexString
		if err := json.Unmarshal([]byte(in), &f); err != nil || string(f) != want {
			t.Errorf("%s: %q, %v", in, f, err)
		}
	}
	for _, bad := range []string{`true`, `{}`, `[]`} {
		var f flexString
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestFlexTime(t *testing.T) {
	want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, in := range []string{`"2024-01-02T03:04:05Z"`, `"2024-01-02T03:04:05"`, `"2024-01-02 03:04:05Z"`, `"2024-01-02 03:04:05"`} {
		var f flexTime
		if err := json.Unmarshal([]byte(in), &f); err != nil || !time.Time(f).Equal(want) {
			t.Errorf("%s: %v, %v", in, time.Time(f), err)
		}
	}
	for _, zero := range []string{`null`, `""`} {
		var f flexTime
		if err := json.Unmarshal([]byte(zero), &f); err != nil || !time.Time(f).IsZero() {
			t.Errorf("%s: %v, %v", zero, time.Time(f), err)
		}
	}
	for _, bad := range []string{`12`, `"yesterday"`} {
		var f flexTime
		if err := json.Unmarshal([]byte(bad), &f); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestMarshalRoundTrip: the types with custom decoding encode to the
// specification's shape and decode back to themselves.
func TestMarshalRoundTrip(t *testing.T) {
	d := Deployment{ID: 42, Name: "prod", CreatedAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
	b, _ := json.Marshal(d)
	if string(b) != `{"id":"42","name":"prod","created_at":"2024-01-02T03:04:05Z"}` {
		t.Errorf("deployment JSON = %s", b)
	}
	var d2 Deployment
	if err := json.Unmarshal(b, &d2); err != nil || !reflect.DeepEqual(d, d2) {
		t.Errorf("deployment round trip = %+v, %v", d2, err)
	}
	b, _ = json.Marshal(Deployment{ID: 1})
	if string(b) != `{"id":"1","name":""}` {
		t.Errorf("deployment without time = %s", b)
	}

	e := Environment{ID: "1", Name: "p", Type: EnvironmentProduction, RESTURL: "https://r", SQLHost: "h", SQLPort: 5432}
	b, _ = json.Marshal(e)
	if string(b) != `{"id":"1","name":"p","type":"production","api_credentials":{"rest":{"url":"https://r"},"sql":{"host":"h","port":5432}}}` {
		t.Errorf("environment JSON = %s", b)
	}
	var e2 Environment
	if err := json.Unmarshal(b, &e2); err != nil || e != e2 {
		t.Errorf("environment round trip = %+v, %v", e2, err)
	}
	b, _ = json.Marshal(Environment{ID: "2"})
	if string(b) != `{"id":"2","name":"","type":"","api_credentials":{}}` {
		t.Errorf("bare environment = %s", b)
	}

	g := TenantGroup{ID: "9", Name: "sales", Description: "d"}
	b, _ = json.Marshal(g)
	var g2 TenantGroup
	if err := json.Unmarshal(b, &g2); err != nil || g2.ID != "9" || g2.Name != "sales" || g2.Description != "d" || string(g2.Raw) != string(b) {
		t.Errorf("group round trip = %+v, %v", g2, err)
	}

	s := DeploymentSettings{ID: 3, Name: "n", ReleaseChannel: "latest", TemplateVariables: map[string]any{"a": "b"}}
	b, _ = json.Marshal(s)
	var s2 DeploymentSettings
	if err := json.Unmarshal(b, &s2); err != nil || s2.ID != 3 || s2.Name != "n" || s2.TemplateVariables["a"] != "b" {
		t.Errorf("settings round trip = %+v, %v", s2, err)
	}
}

func TestEnvironmentBadCredentials(t *testing.T) {
	for _, in := range []string{
		`{"id":"1","api_credentials":"x"}`,
		`{"id":"1","api_credentials":[{"type":"sql","port":"x"}]}`,
		`{"id":"1","api_credentials":{"sql":{"port":true}}}`,
		`{"id":true}`,
	} {
		var e Environment
		if err := json.Unmarshal([]byte(in), &e); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
	for _, in := range []string{`{"id":[]}`, `{"id":"1","description":5}`} {
		var g TenantGroup
		if err := json.Unmarshal([]byte(in), &g); err == nil {
			t.Errorf("group %s accepted", in)
		}
	}
	var d Deployment
	if err := json.Unmarshal([]byte(`{"id":"1","created_at":"soon"}`), &d); err == nil {
		t.Error("bad created_at accepted")
	}
}

func TestListOf(t *testing.T) {
	if _, err := listOf[int](nil, json.RawMessage(`{"other":[1]}`), "versions"); err == nil {
		t.Error("missing key accepted")
	}
	if _, err := listOf[int](nil, json.RawMessage(`"x"`), "versions"); err == nil {
		t.Error("string data accepted")
	}
	if _, err := listOf[int](nil, json.RawMessage(`{"versions":["x"]}`), "versions"); err == nil {
		t.Error("wrong item type accepted")
	}
	got, err := listOf[int](json.RawMessage(`null`), json.RawMessage(`{"versions":[1,2]}`), "versions")
	if err != nil || len(got) != 2 {
		t.Errorf("data.versions = %v, %v", got, err)
	}
	if _, _, err := decodeDeployments([]byte(`[`)); err == nil {
		t.Error("bad JSON accepted")
	}
	page, known, err := decodeDeployments([]byte(`{"items":[],"count":4}`))
	if err != nil || !known || page.Pagination.Total != 4 {
		t.Errorf("count as total: %+v %v %v", page, known, err)
	}
}

func TestUnwrapData(t *testing.T) {
	if got := string(unwrapData([]byte(`{"data":{"a":1}}`))); got != `{"a":1}` {
		t.Errorf("unwrap = %s", got)
	}
	for _, in := range []string{`{"data":[1]}`, `{"token":"x"}`, `[1]`} {
		if got := string(unwrapData([]byte(in))); got != in {
			t.Errorf("unwrap(%s) = %s", in, got)
		}
	}
}

// TestPlainSessionID: the decoder-free reading of generate-session's plain
// answer agrees with encoding/json wherever it answers, and leaves every
// other form to it.
func TestPlainSessionID(t *testing.T) {
	for _, tt := range []struct {
		body string
		ok   bool
	}{
		{`{"sessionId":"5e550001c0ffee0ddba11f00dcafe1a7"}`, true},
		{" {\"sessionId\":\"abc\"}\n", true},
		{`{"sessionId":""}`, true},
		{`{"sessionId": "abc"}`, false},
		{`{"sessionId":"a\"bc"}`, false},
		{`{"sessionId":"a\u0062c"}`, false},
		{`{"sessionId":"é"}`, false},
		{`{"sessionId":12}`, false},
		{`{"data":{"sessionId":"abc"}}`, false},
		{`{"sessionId":"abc","x":1}`, false},
		{`{"sessionId":"abc"`, false},
		{`{"sessionId":"}`, false},
	} {
		id, ok := plainSessionID([]byte(tt.body))
		if ok != tt.ok {
			t.Errorf("plainSessionID(%q) ok = %v, want %v", tt.body, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		var w struct {
			SessionID flexString `json:"sessionId"`
		}
		if err := json.Unmarshal([]byte(tt.body), &w); err != nil || string(w.SessionID) != id {
			t.Errorf("plainSessionID(%q) = %q; encoding/json reads %q, %v", tt.body, id, w.SessionID, err)
		}
	}
}
