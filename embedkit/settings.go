package embedkit

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// This file holds the embed theme and session settings: their shapes,
// merging, validation, and the strict decoding of settings from JSON or a
// map.

// EmbedTheme colours and fonts of the embedded UI.
type EmbedTheme struct {
	PrimaryColor  string                   `json:"primaryColor,omitzero"`
	Font          string                   `json:"font,omitzero"`
	Chat          *EmbedThemeChat          `json:"chat,omitzero"`
	AnalyticsChat *EmbedThemeAnalyticsChat `json:"analyticsChat,omitzero"`
}

// EmbedThemeChat themes the chat input.
type EmbedThemeChat struct {
	InputColor string `json:"inputColor,omitzero"`
}

// EmbedThemeAnalyticsChat themes the analytics chat surface.
type EmbedThemeAnalyticsChat struct {
	BackgroundColor string               `json:"backgroundColor,omitzero"`
	ChatInput       *EmbedThemeChatInput `json:"chatInput,omitzero"`
}

// EmbedThemeChatInput themes the analytics chat input box.
type EmbedThemeChatInput struct {
	BackgroundColor string `json:"backgroundColor,omitzero"`
	BorderColor     string `json:"borderColor,omitzero"`
}

// EmbedSessionSettings are per-session overrides, signed into the embed
// token so a viewer cannot change them. A nil field is omitted and keeps
// the platform default. Use new(false) and new("de-DE") to set values.
type EmbedSessionSettings struct {
	AllowAI                     *bool `json:"allowAi,omitzero"`
	ShowDashboardChat           *bool `json:"showDashboardChat,omitzero"`
	ShowWorkbookChat            *bool `json:"showWorkbookChat,omitzero"`
	ShowAIWidgets               *bool `json:"showAiWidgets,omitzero"`
	AllowChatWorkspaceAuthoring *bool `json:"allowChatWorkspaceAuthoring,omitzero"`
	ShowWorkbookShare           *bool `json:"showWorkbookShare,omitzero"`
	ShowDashboardSettings       *bool `json:"showDashboardSettings,omitzero"`
	ShowMemberNames             *bool `json:"showMemberNames,omitzero"`
	ShowGroupByCube             *bool `json:"showGroupByCube,omitzero"`
	// Locale is a BCP-47 language tag.
	Locale *string `json:"locale,omitzero"`
	// Timezone is an IANA zone name. The platform ignores unknown names, so
	// the client passes it through unchecked.
	Timezone *string `json:"timezone,omitzero"`
}

// Merge returns s with every non-nil key of over applied, as a fresh
// value: defaults (s) overridden key by key (over). Either may be nil; the
// result is nil only when both are.
func (s *EmbedSessionSettings) Merge(over *EmbedSessionSettings) *EmbedSessionSettings {
	if s == nil && over == nil {
		return nil
	}
	var out EmbedSessionSettings
	if s != nil {
		out = *s
	}
	if over == nil {
		return &out
	}
	pick(&out.AllowAI, over.AllowAI)
	pick(&out.ShowDashboardChat, over.ShowDashboardChat)
	pick(&out.ShowWorkbookChat, over.ShowWorkbookChat)
	pick(&out.ShowAIWidgets, over.ShowAIWidgets)
	pick(&out.AllowChatWorkspaceAuthoring, over.AllowChatWorkspaceAuthoring)
	pick(&out.ShowWorkbookShare, over.ShowWorkbookShare)
	pick(&out.ShowDashboardSettings, over.ShowDashboardSettings)
	pick(&out.ShowMemberNames, over.ShowMemberNames)
	pick(&out.ShowGroupByCube, over.ShowGroupByCube)
	pick(&out.Locale, over.Locale)
	pick(&out.Timezone, over.Timezone)
	return &out
}

// pick sets *dst to src when src is set.
func pick[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}

// checkThemeString checks a free-form theme value; empty means omitted.
func checkThemeString(p *problems, field, s string) {
	if s != "" && hasControlChar(s) {
		p.add(field, ruleControl)
	}
}

// checkSettingsValues checks the values of session settings.
func checkSettingsValues(p *problems, s *EmbedSessionSettings) {
	if s.Locale != nil {
		switch l := *s.Locale; {
		case l == "":
			p.add("settings.locale", ruleNotEmpty)
		case !isLocale(l):
			p.add("settings.locale", ruleLocale)
		}
	}
	if s.Timezone != nil {
		// An unknown name, the empty one included, "falls through and does
		// not fail the session" (EmbedSessionSettings.timezone).
		switch tz := *s.Timezone; {
		case len(tz) > maxTimezoneLength:
			p.add("settings.timezone", "must be at most 128 bytes")
		case !utf8.ValidString(tz):
			p.add("settings.timezone", ruleUTF8)
		case hasControlChar(tz):
			p.add("settings.timezone", ruleControl)
		}
	}
}

// settingsError is an error in session settings given as JSON or a map.
// It matches ErrInvalidRequest and wraps the decoding error, if any.
type settingsError struct {
	msg string
	err error
}

func (e *settingsError) Error() string {
	if e.err != nil {
		return "embedkit: settings: " + e.msg + ": " + e.err.Error()
	}
	return "embedkit: settings: " + e.msg
}

func (e *settingsError) Unwrap() []error {
	if e.err != nil {
		return []error{ErrInvalidRequest, e.err}
	}
	return []error{ErrInvalidRequest}
}

// iframeOnlyKeys are the placement-level chrome switches: iframe URL
// parameters that the platform does not accept in session settings.
var iframeOnlyKeys = []string{
	"allowExport",
	"showChatHistory",
	"showChatInput",
	"showDashboardBackButton",
	"showDashboardDuplicateButton",
	"showDashboardEditButton",
	"showDashboardExportMenu",
	"showDashboardHeader",
	"showDashboardTitle",
	"showNewChat",
	"showWorkbookBackButton",
}

// settingsKey returns where key is stored in s: a bool or a string field.
// ok is false for a key the platform does not accept in settings.
func settingsKey(s *EmbedSessionSettings, key string) (b **bool, str **string, ok bool) {
	switch key {
	case "allowAi":
		return &s.AllowAI, nil, true
	case "showDashboardChat":
		return &s.ShowDashboardChat, nil, true
	case "showWorkbookChat":
		return &s.ShowWorkbookChat, nil, true
	case "showAiWidgets":
		return &s.ShowAIWidgets, nil, true
	case "allowChatWorkspaceAuthoring":
		return &s.AllowChatWorkspaceAuthoring, nil, true
	case "showWorkbookShare":
		return &s.ShowWorkbookShare, nil, true
	case "showDashboardSettings":
		return &s.ShowDashboardSettings, nil, true
	case "showMemberNames":
		return &s.ShowMemberNames, nil, true
	case "showGroupByCube":
		return &s.ShowGroupByCube, nil, true
	case "locale":
		return nil, &s.Locale, true
	case "timezone":
		return nil, &s.Timezone, true
	}
	return nil, nil, false
}

// unknownSettingsKey is the error for a key settings do not accept.
func unknownSettingsKey(key string) error {
	if _, found := slices.BinarySearch(iframeOnlyKeys, key); found {
		return &settingsError{msg: strconv.Quote(key) + " is an iframe URL parameter, not a session setting; set it on the embed URL"}
	}
	return &settingsError{msg: "unknown key " + quoteName(key)}
}

// UnmarshalJSON decodes session settings strictly: keys are matched
// exactly (case-sensitive), a key the platform does not accept is an
// error naming it, and the placement-level chrome switches
// (showDashboardHeader and the like) are refused with an error saying they
// are iframe URL parameters. A null value leaves its field nil, as does
// the JSON null for the whole object. Values must be booleans, or strings
// for locale and timezone; Validate checks what they say. On error s is
// unchanged. Errors match ErrInvalidRequest.
func (s *EmbedSessionSettings) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return &settingsError{msg: "malformed JSON", err: err}
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return &settingsError{msg: "must be a JSON object"}
	}
	var out EmbedSessionSettings
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return &settingsError{msg: "malformed JSON", err: err}
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return &settingsError{msg: "malformed JSON", err: err}
		}
		b, str, ok := settingsKey(&out, key)
		if !ok {
			return unknownSettingsKey(key)
		}
		if string(raw) == "null" {
			if b != nil {
				*b = nil
			} else {
				*str = nil
			}
			continue
		}
		if b != nil {
			var v bool
			if err := json.Unmarshal(raw, &v); err != nil {
				return &settingsError{msg: strconv.Quote(key) + " must be a boolean or null", err: err}
			}
			*b = &v
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return &settingsError{msg: strconv.Quote(key) + " must be a string or null", err: err}
		}
		*str = &v
	}
	if _, err := dec.Token(); err != nil {
		return &settingsError{msg: "malformed JSON", err: err}
	}
	if _, err := dec.Token(); err == nil {
		return &settingsError{msg: "unexpected data after the settings object"}
	}
	*s = out
	return nil
}

// ParseSettings builds session settings from a map, as read from a
// configuration file, with the rules of UnmarshalJSON: every key must be
// one the platform accepts (the iframe-only chrome switches are refused),
// boolean keys take a bool, locale and timezone take a string, and nil
// means omitted. Keys are checked in sorted order and the first problem is
// returned. A nil or empty map gives empty settings. Validate on the
// request checks the locale and time zone values.
func ParseSettings(m map[string]any) (*EmbedSessionSettings, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := &EmbedSessionSettings{}
	for _, key := range keys {
		b, str, ok := settingsKey(out, key)
		if !ok {
			return nil, unknownSettingsKey(key)
		}
		switch v := m[key].(type) {
		case nil:
		case bool:
			if b == nil {
				return nil, &settingsError{msg: strconv.Quote(key) + " must be a string or nil"}
			}
			*b = &v
		case string:
			if str == nil {
				return nil, &settingsError{msg: strconv.Quote(key) + " must be a bool or nil"}
			}
			*str = &v
		default:
			if b != nil {
				return nil, &settingsError{msg: strconv.Quote(key) + " must be a bool or nil"}
			}
			return nil, &settingsError{msg: strconv.Quote(key) + " must be a string or nil"}
		}
	}
	return out, nil
}
