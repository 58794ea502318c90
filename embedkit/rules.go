package embedkit

import (
	"errors"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// This file holds the platform's rules that more than one request shares:
// limits, rule messages, name checks, and the predicates other packages
// call (IsTenantName, IsEmailAddress, IsPictureURL, ValidateSessionID,
// ValidateTenantName). Every Validate method, next to its operation,
// checks a request as the client will send it, reports every broken rule
// at once in one *ValidationError (fields in the order the request
// declares them, named by their JSON path), never quotes a value that
// could be a secret (ids, emails, security context values), and never
// changes the request. On a valid request the checks allocate nothing
// beyond what the locale and picture parsers need.

// MaxIDLength was the longest ExternalID or InternalID, in characters,
// that Validate accepted.
//
// Deprecated: the platform states no length limit for ids, and Validate no
// longer applies one.
const MaxIDLength = 256

// MaxSecurityContextDepth is how deeply a security context may nest: the
// context object itself is level 1, an object or array inside it level 2,
// and so on.
const MaxSecurityContextDepth = 32

// TenantNameRule is the platform's pattern for embed tenant names
// (IsTenantName).
const TenantNameRule = "^[a-z][a-z0-9-]{0,34}[a-z0-9]$"

// MaxLocaleLength is the longest locale tag, in bytes, that Validate
// accepts (the host script's setLocale holds to it too).
const MaxLocaleLength = maxLocaleLength

// MemberRule is the specification's pattern for a member name
// ("view.member"), unanchored; Validate matches the whole name against it,
// and the host script's setFilter is generated from it.
const MemberRule = memberRule

// Bounds of other free-form strings. None is documented by the platform;
// each is far above any legitimate value.
const (
	maxEmailLength    = 254 // RFC 5321 path limit
	maxURLLength      = 2048
	maxLocaleLength   = 128
	maxTimezoneLength = 128
	maxVersionLength  = 512
	maxQuotedName     = 64
	// smallNameList is the list length up to which duplicate names are
	// found by comparing pairs, which needs no allocation.
	smallNameList = 16
)

// The patterns of the specification, as written there. Tenant names and
// session ids are checked by IsTenantName and isSessionID, which the tests
// hold equal to these expressions.
const (
	tenantNameRule = TenantNameRule
	sessionIDRule  = "^[0-9a-f]{32}$"
	memberRule     = `.+\..+`
)

var (
	// memberPattern is memberRule anchored: the whole member name.
	memberPattern = regexp.MustCompile(`^` + memberRule + `$`)

	// semverPattern is the expression semver.org recommends.
	semverPattern = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)` +
		`(?:-(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
		`(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$`)

	// imageRepoPattern is the repository part of a container image
	// reference: an optional registry host with an optional port, then
	// slash-separated lower-case path components.
	imageRepoPattern = regexp.MustCompile(`^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?` +
		`(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?/)?` +
		`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$`)
)

// Rules shared by several validators.
const (
	ruleRequired      = "is required"
	ruleBlank         = "must not be blank"
	ruleUTF8          = "must be valid UTF-8"
	ruleControl       = "must not contain control characters"
	ruleNotInternal   = "not allowed with internalId"
	ruleTenantName    = "must match " + tenantNameRule
	ruleNeedsCreator  = "requires creatorMode: true"
	ruleNeedsTenant   = "requires embedTenantName"
	ruleEncodable     = "must be JSON-encodable"
	ruleDepth         = "must nest at most 32 levels deep"
	ruleTooLarge      = "must hold at most 1048576 values"
	ruleAttrType      = "must be one of string, number, boolean, string_array, number_array"
	ruleAttrValue     = "must be a string, number, boolean, array of strings, array of numbers, or null"
	ruleNotNegative   = "must not be negative"
	ruleVersion       = "must be MAJOR.MINOR.PATCH, vMAJOR.MINOR.PATCH or IMAGE:vMAJOR.MINOR.PATCH (semantic version)"
	ruleVersionImage  = "must name an image repository like org/image or registry.example.com:5000/org/image before :v"
	ruleMember        = "must match " + memberRule + " (view.member)"
	ruleLocale        = "must be a well-formed BCP-47 language tag, such as de-DE"
	rulePicture       = "must be an absolute http:// or https:// URL with a host"
	ruleNotEmpty      = "must not be empty"
	ruleFilterOp      = "must be one of equals, not_equals, greater_than, greater_than_or_equal, less_than, less_than_or_equal, contains, not_contains, starts_with, not_starts_with, ends_with, not_ends_with, is_null, is_not_null, is_empty, is_not_empty, between, custom"
	ruleExactlyOneID  = "give exactly one of externalId or internalId"
	ruleEmail         = "must be an email address"
	ruleDate          = "must be a date: midnight in its own location, with no time of day (the platform takes an ISO 8601 date, YYYY-MM-DD)"
	ruleDateYear      = "must be a date in the years 0000 to 9999 (the platform takes an ISO 8601 date, YYYY-MM-DD)"
	ruleEmailInternal = "is used only with externalId"
	ruleCaseFold      = "trimming and lower-casing may change it in ASCII only (white space at the ends, letters A-Z): lower-casing a character such as the Kelvin sign U+212A would make it another user's id"
)

// checkIdentifier checks an external or internal user id; normalize
// selects the external-id form (trimmed, lower-cased).
func checkIdentifier(p *problems, field, raw string, normalize bool) {
	if !utf8.ValidString(raw) {
		p.add(field, ruleUTF8)
		return
	}
	s := raw
	if normalize {
		if !ExternalIDCaseSafe(raw) {
			p.add(field, ruleCaseFold)
			return
		}
		s = NormalizeExternalID(raw)
	}
	switch {
	case strings.TrimSpace(s) == "":
		p.add(field, ruleBlank)
	case hasControlChar(s):
		p.add(field, ruleControl)
	}
}

// Accessors of the name of a list item, for checkName.
func groupDefinitionName(d *GroupDefinition) string { return d.Name }

func attributeDefinitionName(d *UserAttributeDefinition) string { return d.Name }

func attributeInputName(a *UserAttributeInput) string { return a.Name }

// nameSet returns the map checkName uses to find repeated names in a list
// of n items, or nil when n is small enough to compare pairs.
func nameSet(n int) map[string]struct{} {
	if n <= smallNameList {
		return nil
	}
	return make(map[string]struct{}, n)
}

// checkName checks the name of items[i]: non-blank and not the name of an
// earlier item. seen is nameSet(len(items)).
func checkName[T any](p *problems, field string, i int, suffix, name string, items []T, nameOf func(*T) string, seen map[string]struct{}) {
	if strings.TrimSpace(name) == "" {
		p.add(indexField(field, i, suffix), ruleRequired)
		return
	}
	repeated := false
	if seen != nil {
		_, repeated = seen[name]
		seen[name] = struct{}{}
	} else {
		for j := range i {
			if nameOf(&items[j]) == name {
				repeated = true
				break
			}
		}
	}
	if repeated {
		p.add(indexField(field, i, suffix), "duplicate name "+quoteName(name))
	}
}

// indexField returns the JSON path field[i]suffix.
func indexField(field string, i int, suffix string) string {
	return field + "[" + strconv.Itoa(i) + "]" + suffix
}

// quoteName quotes a list item name for a rule, shortened when long.
func quoteName(name string) string {
	if len(name) > maxQuotedName {
		cut := maxQuotedName
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		return strconv.Quote(name[:cut]) + "..."
	}
	return strconv.Quote(name)
}

// hasControlChar reports whether s holds a control character (Unicode
// category Cc: C0, DEL and C1).
func hasControlChar(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsControl(r) {
			return true
		}
		i += size - 1
	}
	return false
}

// IsTenantName reports whether s is an embed tenant name the platform
// accepts: it matches TenantNameRule, ^[a-z][a-z0-9-]{0,34}[a-z0-9]$. It is
// the rule Validate applies to embedTenantName; a caller that builds
// requests (the middleware's Policy) checks with it too.
func IsTenantName(s string) bool {
	if len(s) < 2 || len(s) > 36 {
		return false
	}
	if s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && (c != '-' || i == len(s)-1) {
			return false
		}
	}
	return true
}

// ValidateTenantName reports whether name is a valid embed tenant name:
// ^[a-z][a-z0-9-]{0,34}[a-z0-9]$, 2 to 36 characters (the schema pattern;
// the platform's prose says 5 to 36). The error is a *ValidationError with
// Op "embed-tenant" and Field "embedTenantName".
func ValidateTenantName(name string) error {
	if IsTenantName(name) {
		return nil
	}
	p := problems{op: "embed-tenant"}
	p.add("embedTenantName", ruleTenantName)
	return p.err()
}

// isSessionID reports whether s matches ^[0-9a-f]{32}$.
func isSessionID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// IsEmailAddress reports whether s is a bare email address (no display
// name, no angle brackets, no comments) of at most 254 bytes, as net/mail
// parses it; a quoted local part must be quoted as net/mail writes it.
// Plain ASCII addresses are recognised without net/mail. Validate applies
// it to the audit export's userEmail (the specification's "string
// <EMAIL>") and to a dashboard export's renderAs.email; generate-session's
// email has no format on the platform and is not held to it.
func IsEmailAddress(s string) bool {
	if len(s) > maxEmailLength {
		return false
	}
	if isSimpleEmail(s) {
		return true
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && (a.Address == s || a.String() == "<"+s+">")
}

// isSimpleEmail reports whether s is local@domain with a dot-atom local
// part of letters, digits and ._%+- and a domain of dot-separated labels
// of letters, digits and hyphens. Every such address is one net/mail
// accepts unchanged.
func isSimpleEmail(s string) bool {
	at := strings.IndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !dotSeparated(local, func(c byte) bool {
		return isAlnum(c) || c == '_' || c == '%' || c == '+' || c == '-'
	}) {
		return false
	}
	return dotSeparated(domain, func(c byte) bool { return isAlnum(c) || c == '-' })
}

// dotSeparated reports whether s is non-empty runs of bytes allowed by ok
// separated by single dots.
func dotSeparated(s string, ok func(byte) bool) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if run == 0 {
				return false
			}
			run = 0
			continue
		}
		if !ok(c) {
			return false
		}
		run++
	}
	return run > 0
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// IsPictureURL reports whether s is an absolute http or https URL with a
// host, of at most 2048 bytes: the rule Validate applies to
// userProfile.picture.
func IsPictureURL(s string) bool {
	if s == "" || len(s) > maxURLLength {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Hostname() == "" {
		return false
	}
	return u.Scheme == "http" || u.Scheme == "https"
}

// IsLocale reports whether s is a locale tag Validate accepts: a
// well-formed BCP-47 tag of at most MaxLocaleLength bytes. The host
// script's setLocale is held to it by a test that runs both.
func IsLocale(s string) bool { return isLocale(s) }

// isLocale reports whether s is a well-formed BCP-47 tag. The common
// forms ll, lll, ll-RR and ll-123 are recognised directly; the rest go to
// language.Parse, whose well-formed-but-unknown answer (ValueError) is
// accepted. language.Parse also takes '_' as a separator, which BCP-47
// does not.
func isLocale(s string) bool {
	if len(s) > maxLocaleLength || strings.IndexByte(s, '_') >= 0 {
		return false
	}
	if isSimpleLocale(s) {
		return true
	}
	_, err := language.Parse(s)
	if err == nil {
		return true
	}
	var unknown language.ValueError
	return errors.As(err, &unknown)
}

// isSimpleLocale reports whether s is a 2 or 3 letter language subtag,
// optionally followed by a 2 letter or 3 digit region subtag.
func isSimpleLocale(s string) bool {
	lang, region, hasRegion := strings.Cut(s, "-")
	if len(lang) < 2 || len(lang) > 3 || !allBytes(lang, isLetter) {
		return false
	}
	if !hasRegion {
		return true
	}
	return len(region) == 2 && allBytes(region, isLetter) ||
		len(region) == 3 && allBytes(region, isDigit)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// allBytes reports whether every byte of s satisfies ok.
func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// validationErr builds a *ValidationError for op from path problems plus
// the problems of a request's own Validate.
func validationErr(op string, probs []FieldError, bodyErr error) error {
	var ve *ValidationError
	if bodyErr != nil && !errors.As(bodyErr, &ve) {
		if len(probs) == 0 {
			return bodyErr
		}
		return errors.Join(&ValidationError{Op: op, Problems: probs}, bodyErr)
	}
	if ve != nil {
		if len(probs) == 0 {
			return bodyErr
		}
		return &ValidationError{Op: ve.Op, Problems: append(append([]FieldError(nil), probs...), ve.Problems...)}
	}
	if len(probs) == 0 {
		return nil
	}
	return &ValidationError{Op: op, Problems: probs}
}

// checkDeployment is the deploymentId path check.
func checkDeployment(id int64) []FieldError {
	if id <= 0 {
		return []FieldError{{Field: "deploymentId", Rule: "must be a positive number"}}
	}
	return nil
}
