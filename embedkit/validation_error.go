package embedkit

import (
	"errors"
	"strconv"
	"strings"
)

// ErrInvalidRequest matches every *ValidationError with errors.Is.
var ErrInvalidRequest = errors.New("embedkit: invalid request")

// FieldError is one broken rule of a request.
type FieldError struct {
	// Field is the JSON path of the field as the platform names it, for
	// example "userAttributes[2].name" or "deploymentId".
	Field string
	// Rule says what the field must be, for example "is required" or
	// "must match ^[a-z][a-z0-9-]{0,34}[a-z0-9]$".
	Rule string
}

func (f FieldError) String() string { return f.Field + ": " + f.Rule }

// ValidationError reports every broken rule of one request, found before
// anything was sent. No field value that could be a secret is quoted.
type ValidationError struct {
	// Op names the operation, for example "generate-session".
	Op string
	// Problems lists each broken rule, in field order.
	Problems []FieldError
}

// maxListedProblems bounds how many problems Error lists, so that a
// request with thousands of bad items does not make an error (and a log
// line) of hundreds of kilobytes. Problems keeps them all.
const maxListedProblems = 20

// Error lists the operation and each problem, the first 20 of them
// followed by how many more there are (Problems holds them all).
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("embedkit: invalid ")
	b.WriteString(e.Op)
	b.WriteString(" request: ")
	for i, p := range e.Problems {
		if i == maxListedProblems {
			b.WriteString("; and ")
			b.WriteString(strconv.Itoa(len(e.Problems) - i))
			b.WriteString(" more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Is reports whether target is ErrInvalidRequest.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidRequest }

// Field returns the first problem reported for field, if any.
func (e *ValidationError) Field(field string) (FieldError, bool) {
	for _, p := range e.Problems {
		if p.Field == field {
			return p, true
		}
	}
	return FieldError{}, false
}

// problems collects FieldErrors while a request is checked.
type problems struct {
	op   string
	list []FieldError
}

// add records that field breaks rule.
func (p *problems) add(field, rule string) {
	p.list = append(p.list, FieldError{Field: field, Rule: rule})
}

// err returns a *ValidationError when anything was recorded, nil otherwise.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &ValidationError{Op: p.op, Problems: p.list}
}
