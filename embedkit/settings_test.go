package embedkit

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestEmbedSessionSettingsUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    EmbedSessionSettings
		wantErr string
		wantAs  any // pointer to an error type errors.As must find
	}{
		{name: "every key", in: `{"allowAi":false,"showDashboardChat":true,"showWorkbookChat":false,"showAiWidgets":true,
			"allowChatWorkspaceAuthoring":false,"showWorkbookShare":true,"showDashboardSettings":false,"showMemberNames":true,
			"showGroupByCube":false,"locale":"de-DE","timezone":"Europe/Berlin"}`,
			want: EmbedSessionSettings{AllowAI: new(false), ShowDashboardChat: new(true), ShowWorkbookChat: new(false),
				ShowAIWidgets: new(true), AllowChatWorkspaceAuthoring: new(false), ShowWorkbookShare: new(true),
				ShowDashboardSettings: new(false), ShowMemberNames: new(true), ShowGroupByCube: new(false),
				Locale: new("de-DE"), Timezone: new("Europe/Berlin")}},
		{name: "empty object", in: `{}`},
		{name: "nulls are omitted", in: `{"allowAi":null,"locale":null}`},
		{name: "null object", in: `null`},
		{name: "later key wins", in: `{"allowAi":true,"allowAi":false}`, want: EmbedSessionSettings{AllowAI: new(false)}},
		{name: "unknown key", in: `{"allowAi":true,"showHeader":false}`, wantErr: `embedkit: settings: unknown key "showHeader"`},
		{name: "keys are case-sensitive", in: `{"AllowAI":true}`, wantErr: `embedkit: settings: unknown key "AllowAI"`},
		{name: "iframe chrome key", in: `{"showDashboardHeader":false}`,
			wantErr: `embedkit: settings: "showDashboardHeader" is an iframe URL parameter, not a session setting; set it on the embed URL`},
		{name: "iframe grant key", in: `{"allowExport":true}`,
			wantErr: `embedkit: settings: "allowExport" is an iframe URL parameter, not a session setting; set it on the embed URL`},
		{name: "first problem in document order", in: `{"zzz":1,"aaa":2}`, wantErr: `embedkit: settings: unknown key "zzz"`},
		{name: "bool key given a string", in: `{"allowAi":"false"}`,
			wantErr: `embedkit: settings: "allowAi" must be a boolean or null: json: cannot unmarshal string into Go value of type bool`,
			wantAs:  new(*json.UnmarshalTypeError)},
		{name: "string key given a number", in: `{"locale":1}`,
			wantErr: `embedkit: settings: "locale" must be a string or null: json: cannot unmarshal number into Go value of type string`},
		{name: "not an object", in: `[]`, wantErr: `embedkit: settings: must be a JSON object`},
		{name: "malformed", in: `{"allowAi":tru}`, wantAs: new(*json.SyntaxError)},
		{name: "trailing data", in: `{} {}`, wantErr: `embedkit: settings: unexpected data after the settings object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := EmbedSessionSettings{ShowGroupByCube: new(true)} // left as is on error
			err := s.UnmarshalJSON([]byte(tt.in))
			if tt.wantErr == "" && tt.wantAs == nil {
				if err != nil {
					t.Fatalf("UnmarshalJSON() = %v", err)
				}
				if tt.in == "null" {
					tt.want = EmbedSessionSettings{ShowGroupByCube: new(true)}
				}
				if !reflect.DeepEqual(s, tt.want) {
					t.Errorf("got %+v, want %+v", s, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatal("UnmarshalJSON() = nil")
			}
			if !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("errors.Is(%v, ErrInvalidRequest) = false", err)
			}
			if tt.wantErr != "" && err.Error() != tt.wantErr {
				t.Errorf("error:\n got  %s\n want %s", err, tt.wantErr)
			}
			if tt.wantAs != nil && !errors.As(err, tt.wantAs) {
				t.Errorf("errors.As(%v, %T) = false", err, tt.wantAs)
			}
			if !reflect.DeepEqual(s, EmbedSessionSettings{ShowGroupByCube: new(true)}) {
				t.Errorf("settings changed on error: %+v", s)
			}
		})
	}
}

func TestSettingsInsideRequestJSON(t *testing.T) {
	var r GenerateSessionRequest
	err := json.Unmarshal([]byte(`{"deploymentId":1,"externalId":"u","settings":{"showDashboardTitle":false}}`), &r)
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), `"showDashboardTitle" is an iframe URL parameter`) {
		t.Errorf("Unmarshal() = %v", err)
	}
	err = json.Unmarshal([]byte(`{"deploymentId":1,"externalId":"u","settings":{"locale":"fr-FR","allowAi":null}}`), &r)
	if err != nil || r.Settings == nil || *r.Settings.Locale != "fr-FR" || r.Settings.AllowAI != nil {
		t.Errorf("Unmarshal() = %v, settings %+v", err, r.Settings)
	}
	if err := r.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]any
		want    *EmbedSessionSettings
		wantErr string
	}{
		{name: "nil map", in: nil, want: &EmbedSessionSettings{}},
		{name: "values", in: map[string]any{"allowAi": false, "showMemberNames": true, "locale": "fr-FR", "timezone": "UTC", "showWorkbookChat": nil},
			want: &EmbedSessionSettings{AllowAI: new(false), ShowMemberNames: new(true), Locale: new("fr-FR"), Timezone: new("UTC")}},
		{name: "unknown key", in: map[string]any{"showHeader": false}, wantErr: `embedkit: settings: unknown key "showHeader"`},
		{name: "iframe chrome key", in: map[string]any{"showWorkbookBackButton": false},
			wantErr: `embedkit: settings: "showWorkbookBackButton" is an iframe URL parameter, not a session setting; set it on the embed URL`},
		{name: "first problem in key order", in: map[string]any{"zeta": 1, "alpha": 2, "allowAi": true},
			wantErr: `embedkit: settings: unknown key "alpha"`},
		{name: "bool key given a string", in: map[string]any{"allowAi": "false"}, wantErr: `embedkit: settings: "allowAi" must be a bool or nil`},
		{name: "bool key given a number", in: map[string]any{"allowAi": 0}, wantErr: `embedkit: settings: "allowAi" must be a bool or nil`},
		{name: "string key given a bool", in: map[string]any{"locale": true}, wantErr: `embedkit: settings: "locale" must be a string or nil`},
		{name: "string key given a number", in: map[string]any{"timezone": 2}, wantErr: `embedkit: settings: "timezone" must be a string or nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSettings(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrInvalidRequest) || got != nil {
					t.Errorf("ParseSettings() = %+v, %v; want error %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSettings() = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
