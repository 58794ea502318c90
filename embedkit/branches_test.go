package embedkit

import (
	"testing"
)

func TestStagingEnvironmentRequestValidate(t *testing.T) {
	one := fe("branchName", "give exactly one of branchName or branchId")
	tests := []struct {
		name string
		r    *StagingEnvironmentRequest
		want []FieldError
	}{
		{name: "by name", r: &StagingEnvironmentRequest{Enabled: true, BranchName: "shared/q3"}},
		{name: "by id", r: &StagingEnvironmentRequest{Enabled: false, BranchID: 12}},
		{name: "nil request", r: nil, want: []FieldError{one}},
		{name: "neither", r: &StagingEnvironmentRequest{Enabled: true}, want: []FieldError{one}},
		{name: "both", r: &StagingEnvironmentRequest{BranchName: "a", BranchID: 1}, want: []FieldError{one}},
		{name: "negative id", r: &StagingEnvironmentRequest{BranchID: -1}, want: []FieldError{fe("branchId", "must not be negative")}},
		{name: "blank name", r: &StagingEnvironmentRequest{BranchName: " "}, want: []FieldError{fe("branchName", "must not be blank")}},
		{name: "control character", r: &StagingEnvironmentRequest{BranchName: "a\nb"},
			want: []FieldError{fe("branchName", "must not contain control characters")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { valCheck(t, "staging-environment", tt.r.Validate(), tt.want) })
	}
}
