package embedkit

import (
	"testing"
)

func TestMetaTokenRequestValidate(t *testing.T) {
	tests := []struct {
		name string
		r    *MetaTokenRequest
		want []FieldError
	}{
		{name: "empty context", r: &MetaTokenRequest{SecurityContext: map[string]any{}}},
		{name: "context and lifetime", r: &MetaTokenRequest{SecurityContext: map[string]any{"team": "a"}, ExpiresIn: 1}},
		{name: "nil request", r: nil, want: []FieldError{fe("security_context", "is required")}},
		{name: "context missing", r: &MetaTokenRequest{ExpiresIn: 60}, want: []FieldError{fe("security_context", "is required")}},
		{name: "context not encodable", r: &MetaTokenRequest{SecurityContext: map[string]any{"f": func() {}}},
			want: []FieldError{fe("security_context", "must be JSON-encodable")}},
		{name: "negative lifetime", r: &MetaTokenRequest{SecurityContext: map[string]any{}, ExpiresIn: -1},
			want: []FieldError{fe("expires_in", "must be at least 1")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "tokens-for-meta-sync", tt.r.Validate(), tt.want) })
	}
}

func TestDataAPITokenRequestValidate(t *testing.T) {
	rule := []FieldError{fe("expiresIn", "must be between 60 and 86400")}
	tests := []struct {
		name string
		r    *DataAPITokenRequest
		want []FieldError
	}{
		{name: "nil request", r: nil},
		{name: "default", r: &DataAPITokenRequest{}},
		{name: "minimum", r: &DataAPITokenRequest{ExpiresIn: 60}},
		{name: "maximum", r: &DataAPITokenRequest{ExpiresIn: 86400}},
		{name: "too short", r: &DataAPITokenRequest{ExpiresIn: 59}, want: rule},
		{name: "too long", r: &DataAPITokenRequest{ExpiresIn: 86401}, want: rule},
		{name: "negative", r: &DataAPITokenRequest{ExpiresIn: -60}, want: rule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "deployment-token", tt.r.Validate(), tt.want) })
	}
}
