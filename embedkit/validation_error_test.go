package embedkit

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func fe(field, rule string) FieldError { return FieldError{Field: field, Rule: rule} }

// valProblems returns the problems of err, checking that it is a
// *ValidationError with op that matches ErrInvalidRequest.
func valProblems(t *testing.T, op string, err error) []FieldError {
	t.Helper()
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("errors.Is(%v, ErrInvalidRequest) = false", err)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %T is not a *ValidationError", err)
	}
	if ve.Op != op {
		t.Errorf("Op = %q, want %q", ve.Op, op)
	}
	if !strings.HasPrefix(err.Error(), "embedkit: ") {
		t.Errorf("error %q does not start with embedkit:", err)
	}
	return ve.Problems
}

// valCheck compares the problems of err with want.
func valCheck(t *testing.T, op string, err error, want []FieldError) {
	t.Helper()
	got := valProblems(t, op, err)
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got  %q\n want %q", got, want)
	}
}
