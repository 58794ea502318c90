package embedkit

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"net/mail"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// This file holds the request validators. Every Validate method checks a
// request as the client will send it, reports every broken rule at once in
// one *ValidationError (fields in the order the request declares them,
// named by their JSON path), never quotes a value that could be a secret
// (ids, emails, security context values), and never changes the request.
// On a valid request the checks allocate nothing beyond what the locale and
// picture parsers need.

// MaxIDLength is the longest ExternalID or InternalID, in characters,
// that Validate accepts. The platform states no limit; identifiers longer
// than this are almost certainly not user identifiers.
const MaxIDLength = 256

// MaxSecurityContextDepth is how deeply a security context may nest: the
// context object itself is level 1, an object or array inside it level 2,
// and so on.
const MaxSecurityContextDepth = 32

// Bounds of other free-form strings. None is documented by the platform;
// each is far above any legitimate value.
// TenantNameRule is the platform's pattern for embed tenant names
// (IsTenantName).
const TenantNameRule = "^[a-z][a-z0-9-]{0,34}[a-z0-9]$"

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
	ruleIDLength      = "must be at most 256 characters"
	ruleNotInternal   = "not allowed with internalId"
	ruleEmail         = "must be an email address"
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
	ruleNothingToSend = "must set at least one field to update"
)

// NormalizeExternalID returns s as the platform requires external ids:
// without leading and trailing Unicode white space, and lower-cased.
// GenerateSessionRequest.Validate checks the normalised form.
//
// A string that is not valid UTF-8 is returned unchanged, for Validate to
// refuse: lower-casing would turn each invalid byte into U+FFFD, so that
// distinct ids would reach the platform as one user.
func NormalizeExternalID(s string) string {
	if !utf8.ValidString(s) {
		return s
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// Validate reports every rule of the generate-session request that r
// breaks, in one *ValidationError with Op "generate-session" (errors.Is
// matches ErrInvalidRequest); it returns nil for a valid request. It checks
// ExternalID in its normalised form (see NormalizeExternalID) and never
// changes r. A nil r is checked as an empty request.
//
// A field counts as present when it would be sent: a non-empty string, a
// non-nil pointer, slice or map (an empty non-nil slice is sent as []).
// The rules:
//
//   - deploymentId is required and positive.
//   - Exactly one of externalId or internalId. Each is valid UTF-8 without
//     control characters and at most MaxIDLength characters; externalId
//     must not be blank once trimmed.
//   - With internalId, groups, userAttributes, groupDefinitions,
//     userAttributeDefinitions, securityContext and userProfile are not
//     allowed. email is allowed only with externalId and must be a bare
//     address (net/mail syntax, at most 254 bytes).
//   - userProfile.picture is an absolute http:// or https:// URL with a host.
//   - embedTenantName matches ^[a-z][a-z0-9-]{0,34}[a-z0-9]$. This is the
//     schema pattern, which allows 2 to 36 characters; the platform's prose
//     says 5 to 36, and the schema is followed.
//   - tenantGroups and tenantGroupDefinitions need creatorMode true and
//     embedTenantName; userAttributeDefinitions need creatorMode true.
//   - Group names and the names of every definition and attribute input
//     are non-blank and unique within their list. groupDefinitions is
//     deprecated and ignored by the platform; it is checked only for that.
//   - A definition's type is one of the five AttributeType values.
//   - An attribute value is nil, a string, a bool, a Go number or
//     json.Number (finite), a []string, a slice of a Go number type, or a
//     []any holding only strings or only numbers. When the request also
//     defines that attribute, the value matches the definition's type (nil
//     always does).
//   - securityContext is JSON-encodable and nests at most
//     MaxSecurityContextDepth levels.
//   - settings.locale, when set, is a well-formed BCP-47 tag as
//     golang.org/x/text/language parses it (unknown but well-formed
//     subtags pass: the platform falls back to its default locale) and
//     uses '-' separators. settings.timezone, when set, is non-empty and
//     free of control characters; it is not looked up, because the
//     platform ignores unknown zones.
//   - embedTheme colours and font are free-form (CSS colours and font
//     names): any string without control characters passes.
//   - branchName has no control characters.
func (r *GenerateSessionRequest) Validate() error {
	if r == nil {
		r = &GenerateSessionRequest{}
	}
	p := problems{op: "generate-session"}
	internal := r.InternalID != ""

	switch {
	case r.DeploymentID == 0:
		p.add("deploymentId", ruleRequired)
	case r.DeploymentID < 0:
		p.add("deploymentId", "must be positive")
	}

	if (r.ExternalID != "") == internal {
		p.add("externalId", ruleExactlyOneID)
	}
	if r.ExternalID != "" {
		checkIdentifier(&p, "externalId", r.ExternalID, true)
	}
	if internal {
		checkIdentifier(&p, "internalId", r.InternalID, false)
	}
	if r.Email != "" {
		if r.ExternalID == "" {
			p.add("email", "only allowed with externalId")
		}
		if !IsEmailAddress(r.Email) {
			p.add("email", ruleEmail)
		}
	}
	if r.UserProfile != nil {
		if internal {
			p.add("userProfile", ruleNotInternal)
		}
		if pic := r.UserProfile.Picture; pic != "" && !IsPictureURL(pic) {
			p.add("userProfile.picture", rulePicture)
		}
	}
	if r.EmbedTenantName != "" && !IsTenantName(r.EmbedTenantName) {
		p.add("embedTenantName", ruleTenantName)
	}

	creator := r.CreatorMode != nil && *r.CreatorMode
	tenant := r.EmbedTenantName != ""
	if r.Groups != nil {
		if internal {
			p.add("groups", ruleNotInternal)
		}
		checkGroupNames(&p, "groups", r.Groups)
	}
	if r.TenantGroups != nil {
		checkTenantScope(&p, "tenantGroups", creator, tenant)
		checkGroupNames(&p, "tenantGroups", r.TenantGroups)
	}
	if r.TenantGroupDefinitions != nil {
		checkTenantScope(&p, "tenantGroupDefinitions", creator, tenant)
		checkGroupDefinitions(&p, "tenantGroupDefinitions", r.TenantGroupDefinitions)
	}
	if r.GroupDefinitions != nil {
		if internal {
			p.add("groupDefinitions", ruleNotInternal)
		}
		checkGroupDefinitions(&p, "groupDefinitions", r.GroupDefinitions)
	}
	if r.UserAttributes != nil {
		if internal {
			p.add("userAttributes", ruleNotInternal)
		}
		checkAttributeInputs(&p, "userAttributes", r.UserAttributes, r.UserAttributeDefinitions)
	}
	if r.UserAttributeDefinitions != nil {
		if internal {
			p.add("userAttributeDefinitions", ruleNotInternal)
		}
		if !creator {
			p.add("userAttributeDefinitions", ruleNeedsCreator)
		}
		checkAttributeDefinitions(&p, "userAttributeDefinitions", r.UserAttributeDefinitions)
	}
	if r.SecurityContext != nil {
		if internal {
			p.add("securityContext", ruleNotInternal)
		}
		checkEncodable(&p, "securityContext", r.SecurityContext)
	}
	if r.Settings != nil {
		checkSettingsValues(&p, r.Settings)
	}
	if t := r.EmbedTheme; t != nil {
		checkThemeString(&p, "embedTheme.primaryColor", t.PrimaryColor)
		checkThemeString(&p, "embedTheme.font", t.Font)
		if t.Chat != nil {
			checkThemeString(&p, "embedTheme.chat.inputColor", t.Chat.InputColor)
		}
		if a := t.AnalyticsChat; a != nil {
			checkThemeString(&p, "embedTheme.analyticsChat.backgroundColor", a.BackgroundColor)
			if in := a.ChatInput; in != nil {
				checkThemeString(&p, "embedTheme.analyticsChat.chatInput.backgroundColor", in.BackgroundColor)
				checkThemeString(&p, "embedTheme.analyticsChat.chatInput.borderColor", in.BorderColor)
			}
		}
	}
	if r.BranchName != "" {
		if !utf8.ValidString(r.BranchName) {
			p.add("branchName", ruleUTF8)
		} else if hasControlChar(r.BranchName) {
			p.add("branchName", ruleControl)
		}
	}
	return p.err()
}

// checkIdentifier checks an external or internal user id; normalize
// selects the external-id form (trimmed, lower-cased).
func checkIdentifier(p *problems, field, raw string, normalize bool) {
	if !utf8.ValidString(raw) {
		p.add(field, ruleUTF8)
		return
	}
	s := raw
	if normalize {
		s = NormalizeExternalID(raw)
	}
	switch {
	case strings.TrimSpace(s) == "":
		p.add(field, ruleBlank)
	case hasControlChar(s):
		p.add(field, ruleControl)
	case utf8.RuneCountInString(s) > MaxIDLength:
		p.add(field, ruleIDLength)
	}
}

// checkTenantScope reports a per-embed-tenant field sent without creator
// mode or without a tenant.
func checkTenantScope(p *problems, field string, creator, tenant bool) {
	if !creator {
		p.add(field, ruleNeedsCreator)
	}
	if !tenant {
		p.add(field, ruleNeedsTenant)
	}
}

// checkGroupNames checks a list of group names: each non-blank, none
// repeated.
func checkGroupNames(p *problems, field string, names []string) {
	seen := nameSet(len(names))
	for i, n := range names {
		checkName(p, field, i, "", n, names, identity, seen)
	}
}

// checkGroupDefinitions checks the names of group definitions.
func checkGroupDefinitions(p *problems, field string, defs []GroupDefinition) {
	seen := nameSet(len(defs))
	for i := range defs {
		checkName(p, field, i, ".name", defs[i].Name, defs, groupDefinitionName, seen)
	}
}

// checkAttributeDefinitions checks names and types of attribute
// definitions.
func checkAttributeDefinitions(p *problems, field string, defs []UserAttributeDefinition) {
	seen := nameSet(len(defs))
	for i := range defs {
		d := &defs[i]
		checkName(p, field, i, ".name", d.Name, defs, attributeDefinitionName, seen)
		switch d.Type {
		case AttributeString, AttributeNumber, AttributeBoolean, AttributeStringArray, AttributeNumberArray:
		case "":
			p.add(indexField(field, i, ".type"), ruleRequired)
		default:
			p.add(indexField(field, i, ".type"), ruleAttrType)
		}
	}
}

// checkAttributeInputs checks attribute values: names non-blank and
// unique, values of a sendable kind, and of the type of a definition of
// the same name in defs.
func checkAttributeInputs(p *problems, field string, inputs []UserAttributeInput, defs []UserAttributeDefinition) {
	seen := nameSet(len(inputs))
	for i := range inputs {
		in := &inputs[i]
		checkName(p, field, i, ".name", in.Name, inputs, attributeInputName, seen)
		kind := attributeKind(in.Value)
		if kind == kindInvalid {
			p.add(indexField(field, i, ".value"), ruleAttrValue)
			continue
		}
		if kind == kindNull {
			continue
		}
		for j := range defs {
			if defs[j].Name != in.Name {
				continue
			}
			if t := defs[j].Type; !kind.fits(t) && t.known() {
				p.add(indexField(field, i, ".value"), "must be of type "+string(t)+" to match its definition")
			}
			break
		}
	}
}

// Accessors of the name of a list item, for checkName.
func identity(s *string) string                                 { return *s }
func groupDefinitionName(d *GroupDefinition) string             { return d.Name }
func attributeDefinitionName(d *UserAttributeDefinition) string { return d.Name }
func attributeInputName(a *UserAttributeInput) string           { return a.Name }

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

// valueKind is the JSON shape of a user attribute value.
type valueKind uint8

const (
	kindInvalid valueKind = iota
	kindNull
	kindString
	kindNumber
	kindBool
	kindStringArray
	kindNumberArray
	kindEmptyArray // fits both array types
)

// fits reports whether a value of kind k may be given for an attribute of
// type t.
func (k valueKind) fits(t AttributeType) bool {
	switch t {
	case AttributeString:
		return k == kindString
	case AttributeNumber:
		return k == kindNumber
	case AttributeBoolean:
		return k == kindBool
	case AttributeStringArray:
		return k == kindStringArray || k == kindEmptyArray
	case AttributeNumberArray:
		return k == kindNumberArray || k == kindEmptyArray
	}
	return false
}

// known reports whether t is one of the attribute types.
func (t AttributeType) known() bool {
	switch t {
	case AttributeString, AttributeNumber, AttributeBoolean, AttributeStringArray, AttributeNumberArray:
		return true
	}
	return false
}

// attributeKind classifies a user attribute value by the JSON it encodes
// to, or kindInvalid when that is not a shape the platform accepts.
func attributeKind(v any) valueKind {
	if k := scalarKind(v); k != kindInvalid {
		return k
	}
	switch x := v.(type) {
	case []string:
		if x == nil {
			return kindNull
		}
		return arrayKind(len(x), kindStringArray)
	case []float64:
		if x == nil {
			return kindNull
		}
		for _, f := range x {
			if !isFinite(f) {
				return kindInvalid
			}
		}
		return arrayKind(len(x), kindNumberArray)
	case []int:
		if x == nil {
			return kindNull
		}
		return arrayKind(len(x), kindNumberArray)
	case []int64:
		if x == nil {
			return kindNull
		}
		return arrayKind(len(x), kindNumberArray)
	case json.Number:
		return kindInvalid // not a number literal, so it cannot be encoded
	case []any:
		if x == nil {
			return kindNull
		}
		if len(x) == 0 {
			return kindEmptyArray
		}
		first := scalarKind(x[0])
		if first != kindString && first != kindNumber {
			return kindInvalid
		}
		for _, e := range x[1:] {
			if scalarKind(e) != first {
				return kindInvalid
			}
		}
		if first == kindString {
			return kindStringArray
		}
		return kindNumberArray
	}
	return reflectedKind(v)
}

// arrayKind is the kind of a non-nil slice of n elements of kind k.
func arrayKind(n int, k valueKind) valueKind {
	if n == 0 {
		return kindEmptyArray
	}
	return k
}

// scalarKind classifies the built-in scalar types and nil; anything else
// is kindInvalid.
func scalarKind(v any) valueKind {
	switch x := v.(type) {
	case nil:
		return kindNull
	case string:
		return kindString
	case bool:
		return kindBool
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr:
		return kindNumber
	case float64:
		if isFinite(x) {
			return kindNumber
		}
	case float32:
		if isFinite(float64(x)) {
			return kindNumber
		}
	case json.Number:
		if isJSONNumber(string(x)) {
			return kindNumber
		}
	}
	return kindInvalid
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
)

// reflectedKind classifies named types (type Region string, []Score) by
// their underlying kind. Types with their own JSON or text encoding are
// invalid: what they encode to cannot be known here.
func reflectedKind(v any) valueKind {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || encodesItself(rv.Type()) {
		return kindInvalid
	}
	if k := reflectedScalarKind(rv); k != kindInvalid {
		return k
	}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return kindInvalid
	}
	et := rv.Type().Elem()
	if rv.Kind() == reflect.Slice && (rv.IsNil() || et.Kind() == reflect.Uint8) {
		// A nil slice encodes as null; a byte slice as a base64 string,
		// which is not what a caller giving numbers means.
		if rv.IsNil() {
			return kindNull
		}
		return kindInvalid
	}
	if encodesItself(et) {
		return kindInvalid
	}
	if et == jsonNumberType {
		for i := range rv.Len() {
			if !isJSONNumber(rv.Index(i).String()) {
				return kindInvalid
			}
		}
		return arrayKind(rv.Len(), kindNumberArray)
	}
	var want valueKind
	switch et.Kind() {
	case reflect.String:
		want = kindString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		want = kindNumber
	default:
		return kindInvalid
	}
	for i := range rv.Len() {
		if reflectedScalarKind(rv.Index(i)) != want {
			return kindInvalid
		}
	}
	if want == kindString {
		return arrayKind(rv.Len(), kindStringArray)
	}
	return arrayKind(rv.Len(), kindNumberArray)
}

// reflectedScalarKind classifies a string, bool or number of any type.
func reflectedScalarKind(rv reflect.Value) valueKind {
	switch rv.Kind() {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return kindNumber
	case reflect.Float32, reflect.Float64:
		if isFinite(rv.Float()) {
			return kindNumber
		}
	}
	return kindInvalid
}

// encodesItself reports whether values of t (or pointers to them, as
// slice elements are encoded) have their own JSON or text encoding.
func encodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) ||
		pt.Implements(jsonMarshalerType) || pt.Implements(textMarshalerType)
}

// isFinite reports whether f is neither NaN nor infinite.
func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// isJSONNumber reports whether s is a JSON number literal.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// checkEncodable reports field when v cannot be encoded as JSON, nests
// deeper than MaxSecurityContextDepth or holds more than maxJSONValues
// values. An object or array v is level 1 itself.
func checkEncodable(p *problems, field string, v any) {
	switch encodable(v) {
	case encodeFails:
		p.add(field, ruleEncodable)
	case encodeTooDeep:
		p.add(field, ruleDepth)
	case encodeTooLarge:
		p.add(field, ruleTooLarge)
	}
}

// maxJSONValues bounds how many values a security context, template
// variables or filter value may hold. It stops a hostile value (a slice
// holding the same slice twice, nested 32 times) from taking 2^32 steps.
const maxJSONValues = 1 << 20

// encodeResult is the outcome of encodable, worst last: a value that
// fails to encode anywhere fails, otherwise one that is cut off too large
// or too deep is reported as such.
type encodeResult uint8

const (
	encodeOK encodeResult = iota
	encodeTooDeep
	encodeTooLarge
	encodeFails
)

// encodable reports whether v encodes to JSON within
// MaxSecurityContextDepth levels and maxJSONValues values. The common
// shapes of decoded JSON are walked directly, without allocating; other
// types are encoded with encoding/json and the result is measured. Nesting
// is bounded, so a map or slice that contains itself ends as too deep.
func encodable(v any) encodeResult {
	w := jsonWalker{budget: maxJSONValues}
	return w.walk(v, 0)
}

// jsonWalker walks a value; budget is how many more values it may visit.
type jsonWalker struct{ budget int }

// walk checks v, found inside depth enclosing objects and arrays.
func (w *jsonWalker) walk(v any, depth int) encodeResult {
	w.budget--
	if w.budget < 0 {
		return encodeTooLarge
	}
	switch x := v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr:
		return encodeOK
	case float64:
		if isFinite(x) {
			return encodeOK
		}
		return encodeFails
	case float32:
		if isFinite(float64(x)) {
			return encodeOK
		}
		return encodeFails
	case json.Number:
		if x == "" || isJSONNumber(string(x)) {
			return encodeOK
		}
		return encodeFails
	case map[string]any:
		if x == nil {
			return encodeOK
		}
		if depth >= MaxSecurityContextDepth {
			return encodeTooDeep
		}
		worst := encodeOK
		for _, e := range x {
			if worst = max(worst, w.walk(e, depth+1)); worst == encodeFails {
				break
			}
		}
		return worst
	case []any:
		if x == nil {
			return encodeOK
		}
		if depth >= MaxSecurityContextDepth {
			return encodeTooDeep
		}
		worst := encodeOK
		for _, e := range x {
			if worst = max(worst, w.walk(e, depth+1)); worst == encodeFails {
				break
			}
		}
		return worst
	case []string, map[string]string, []int, []int64:
		if depth >= MaxSecurityContextDepth {
			return encodeTooDeep
		}
		return encodeOK
	case []float64:
		for _, f := range x {
			if !isFinite(f) {
				return encodeFails
			}
		}
		if x != nil && depth >= MaxSecurityContextDepth {
			return encodeTooDeep
		}
		return encodeOK
	}
	b, err := json.Marshal(v)
	if err != nil {
		return encodeFails
	}
	if depth+rawJSONDepth(b) > MaxSecurityContextDepth {
		return encodeTooDeep
	}
	return encodeOK
}

// rawJSONDepth returns the deepest nesting of objects and arrays in the
// valid JSON text b.
func rawJSONDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
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
// Plain ASCII addresses are recognised without net/mail. It is the rule
// Validate applies to every email field.
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
	if len(s) > maxURLLength {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Hostname() == "" {
		return false
	}
	return u.Scheme == "http" || u.Scheme == "https"
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
		switch tz := *s.Timezone; {
		case tz == "":
			p.add("settings.timezone", ruleNotEmpty)
		case len(tz) > maxTimezoneLength:
			p.add("settings.timezone", "must be at most 128 bytes")
		case !utf8.ValidString(tz):
			p.add("settings.timezone", ruleUTF8)
		case hasControlChar(tz):
			p.add("settings.timezone", ruleControl)
		}
	}
}

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
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// allBytes reports whether every byte of s satisfies ok.
func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
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

// Validate reports the problems of a tokens-for-meta-sync request, Op
// "tokens-for-meta-sync": security_context is required (a non-nil map;
// empty is allowed), JSON-encodable and nested at most
// MaxSecurityContextDepth levels; expires_in is zero (the platform
// default) or at least 1.
func (r *MetaTokenRequest) Validate() error {
	if r == nil {
		r = &MetaTokenRequest{}
	}
	p := problems{op: "tokens-for-meta-sync"}
	if r.SecurityContext == nil {
		p.add("security_context", ruleRequired)
	} else {
		checkEncodable(&p, "security_context", r.SecurityContext)
	}
	if r.ExpiresIn < 0 {
		p.add("expires_in", "must be at least 1")
	}
	return p.err()
}

// Validate reports the problems of a deployment-token request, Op
// "deployment-token": expiresIn is zero (the default, 86400) or between 60
// and 86400 seconds. A nil request is valid.
func (r *DataAPITokenRequest) Validate() error {
	if r == nil || r.ExpiresIn == 0 {
		return nil
	}
	if r.ExpiresIn < 60 || r.ExpiresIn > 86400 {
		p := problems{op: "deployment-token"}
		p.add("expiresIn", "must be between 60 and 86400")
		return p.err()
	}
	return nil
}

// Validate reports the problems of a staging-environment request, Op
// "staging-environment": exactly one of branchName or branchId (zero
// means unset), branchId not negative, branchName not blank and without
// control characters.
func (r *StagingEnvironmentRequest) Validate() error {
	if r == nil {
		r = &StagingEnvironmentRequest{}
	}
	p := problems{op: "staging-environment"}
	if (r.BranchName == "") == (r.BranchID == 0) {
		p.add("branchName", "give exactly one of branchName or branchId")
	}
	if r.BranchName != "" {
		switch {
		case strings.TrimSpace(r.BranchName) == "":
			p.add("branchName", ruleBlank)
		case !utf8.ValidString(r.BranchName):
			p.add("branchName", ruleUTF8)
		case hasControlChar(r.BranchName):
			p.add("branchName", ruleControl)
		}
	}
	if r.BranchID < 0 {
		p.add("branchId", ruleNotNegative)
	}
	return p.err()
}

// ParseVersion reads a deployment version in any spelling the platform
// accepts and returns the bare semantic version:
//
//	1.7.20                           -> 1.7.20
//	v1.7.20                          -> 1.7.20
//	org/image:v1.7.20                -> 1.7.20
//	registry.example.com:5000/org/image:v1.7.20-rc.1+build.5 -> 1.7.20-rc.1+build.5
//
// The version is MAJOR.MINOR.PATCH with an optional pre-release and build
// suffix as semver.org defines them. An image repository is separated by
// the last ':' (a registry port also holds one) and follows the container
// image reference grammar. The error is a *ValidationError with Op
// "version" and Field "releaseChannelVersion".
func ParseVersion(s string) (semver string, err error) {
	v, rule := parseVersion(s)
	if rule != "" {
		p := problems{op: "version"}
		p.add("releaseChannelVersion", rule)
		return "", p.err()
	}
	return v, nil
}

// parseVersion returns the semantic version in s, or the rule s breaks.
func parseVersion(s string) (semver, rule string) {
	if len(s) > maxVersionLength {
		return "", ruleVersion
	}
	v := s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		repo := s[:i]
		v = s[i+1:]
		if !strings.HasPrefix(v, "v") || !semverPattern.MatchString(v[1:]) {
			return "", ruleVersion
		}
		if !imageRepoPattern.MatchString(repo) {
			return "", ruleVersionImage
		}
		return v[1:], ""
	}
	v = strings.TrimPrefix(v, "v")
	if !semverPattern.MatchString(v) {
		return "", ruleVersion
	}
	return v, ""
}

// Validate reports the problems of a deployment update, Op
// "update-deployment": the request must change something (a request with
// every field zero, or only an empty templateVariables, is refused);
// releaseChannelVersion, when set, is a version ParseVersion accepts;
// templateVariables keys are non-empty and the map is JSON-encodable.
func (r *UpdateDeploymentRequest) Validate() error {
	if r == nil {
		r = &UpdateDeploymentRequest{}
	}
	p := problems{op: "update-deployment"}
	if r.ReleaseChannelVersion == "" && r.ReleaseChannel == "" && r.ReleaseChannelVersionHold == nil &&
		r.CloudProvider == "" && r.Region == "" && r.Template == "" && len(r.TemplateVariables) == 0 &&
		r.DefaultLaunchpadViewGroup == "" && r.LaunchpadTabs == nil && r.CreationMethod == "" && r.DeployMode == "" {
		p.add("request", ruleNothingToSend)
	}
	if r.ReleaseChannelVersion != "" {
		if _, rule := parseVersion(r.ReleaseChannelVersion); rule != "" {
			p.add("releaseChannelVersion", rule)
		}
	}
	if r.TemplateVariables != nil {
		if _, empty := r.TemplateVariables[""]; empty {
			p.add("templateVariables", "keys must not be empty")
		}
		checkEncodable(&p, "templateVariables", r.TemplateVariables)
	}
	return p.err()
}

// Validate reports the problems of audit-log export options, Op
// "audit-log-export": end not before start (when both are set) and
// userEmail, when set, an email address. Nil options are valid.
func (o *AuditLogOptions) Validate() error {
	if o == nil {
		return nil
	}
	p := problems{op: "audit-log-export"}
	if !o.Start.IsZero() && !o.End.IsZero() && o.End.Before(o.Start) {
		p.add("end", "must not be before start")
	}
	if o.UserEmail != "" && !IsEmailAddress(o.UserEmail) {
		p.add("userEmail", ruleEmail)
	}
	return p.err()
}

// Validate reports the problems of a dashboard export request, Op
// "dashboard-export":
//
//   - exactly one of dashboardId (not negative; zero means unset) or
//     dashboardPublicId;
//   - format is required, png or pdf;
//   - renderAs.type is USER or EMBED_USER. USER takes exactly one of
//     userId or email and no embedTenantName or externalId; EMBED_USER
//     needs externalId and takes no userId, and its embedTenantName, when
//     set, matches the tenant pattern. email is an address when set;
//     renderAs groups and userAttributes names are non-blank and unique,
//     attribute values of a sendable kind, securityContext JSON-encodable;
//   - every filters, timeGrains and memberSwitchers member matches .+\..+
//     (view.member); grain and selected are required; a filter operator,
//     when set, is one of the platform's operators; a filter value is
//     JSON-encodable.
func (r *DashboardExportRequest) Validate() error {
	if r == nil {
		r = &DashboardExportRequest{}
	}
	p := problems{op: "dashboard-export"}
	if (r.DashboardID == 0) == (r.DashboardPublicID == "") {
		p.add("dashboardId", "give exactly one of dashboardId or dashboardPublicId")
	}
	if r.DashboardID < 0 {
		p.add("dashboardId", ruleNotNegative)
	}
	switch r.Format {
	case FormatPNG, FormatPDF:
	case "":
		p.add("format", ruleRequired)
	default:
		p.add("format", "must be png or pdf")
	}
	if r.RenderAs != nil {
		checkRenderAs(&p, r.RenderAs)
	}
	checkControls(&p, r.Filters, r.TimeGrains, r.MemberSwitchers)
	return p.err()
}

// checkControls checks dashboard control overrides: those of an export
// and those preset from an embed URL (DashboardControls).
func checkControls(p *problems, filters []DashboardFilter, grains []DashboardTimeGrain, switchers []DashboardMemberSwitcher) {
	for i := range filters {
		f := &filters[i]
		checkMember(p, "filters", i, f.Member)
		if f.Operator != "" && !isFilterOperator(f.Operator) {
			p.add(indexField("filters", i, ".operator"), ruleFilterOp)
		}
		if f.Value != nil && encodable(f.Value) != encodeOK {
			checkEncodable(p, indexField("filters", i, ".value"), f.Value)
		}
	}
	for i := range grains {
		g := &grains[i]
		checkMember(p, "timeGrains", i, g.Member)
		if strings.TrimSpace(g.Grain) == "" {
			p.add(indexField("timeGrains", i, ".grain"), ruleRequired)
		}
	}
	for i := range switchers {
		m := &switchers[i]
		checkMember(p, "memberSwitchers", i, m.Member)
		if strings.TrimSpace(m.Selected) == "" {
			p.add(indexField("memberSwitchers", i, ".selected"), ruleRequired)
		}
	}
}

// checkRenderAs checks the subject of a dashboard export.
func checkRenderAs(p *problems, ra *RenderAs) {
	switch ra.Type {
	case SubjectUser:
		if (ra.UserID == 0) == (ra.Email == "") {
			p.add("renderAs.userId", "give exactly one of userId or email with type USER")
		}
	case SubjectEmbedUser:
		if ra.UserID != 0 {
			p.add("renderAs.userId", "not allowed with type EMBED_USER")
		}
	case "":
		p.add("renderAs.type", ruleRequired)
	default:
		p.add("renderAs.type", "must be USER or EMBED_USER")
	}
	if ra.UserID < 0 {
		p.add("renderAs.userId", ruleNotNegative)
	}
	if ra.Email != "" && !IsEmailAddress(ra.Email) {
		p.add("renderAs.email", ruleEmail)
	}
	if ra.EmbedTenantName != "" {
		if ra.Type == SubjectUser {
			p.add("renderAs.embedTenantName", "not allowed with type USER")
		} else if !IsTenantName(ra.EmbedTenantName) {
			p.add("renderAs.embedTenantName", ruleTenantName)
		}
	}
	switch {
	case ra.ExternalID != "" && ra.Type == SubjectUser:
		p.add("renderAs.externalId", "not allowed with type USER")
	case ra.ExternalID != "":
		checkIdentifier(p, "renderAs.externalId", ra.ExternalID, true)
	case ra.Type == SubjectEmbedUser:
		p.add("renderAs.externalId", ruleRequired)
	}
	if ra.Groups != nil {
		checkGroupNames(p, "renderAs.groups", ra.Groups)
	}
	if ra.SecurityContext != nil {
		checkEncodable(p, "renderAs.securityContext", ra.SecurityContext)
	}
	if ra.UserAttributes != nil {
		checkAttributeInputs(p, "renderAs.userAttributes", ra.UserAttributes, nil)
	}
}

// checkMember checks the member of a dashboard control override.
func checkMember(p *problems, field string, i int, member string) {
	switch {
	case member == "":
		p.add(indexField(field, i, ".member"), ruleRequired)
	case !memberPattern.MatchString(member):
		p.add(indexField(field, i, ".member"), ruleMember)
	}
}

// isFilterOperator reports whether op is a dashboard filter operator.
func isFilterOperator(op string) bool {
	switch op {
	case "equals", "not_equals", "greater_than", "greater_than_or_equal", "less_than",
		"less_than_or_equal", "contains", "not_contains", "starts_with", "not_starts_with",
		"ends_with", "not_ends_with", "is_null", "is_not_null", "is_empty", "is_not_empty",
		"between", "custom":
		return true
	}
	return false
}

// ValidateSessionID reports whether id has the shape of a session id, 32
// lower-case hexadecimal characters, as revoke requires. The error, a
// *ValidationError with Op "session" and Field "sessionId", never quotes
// the id.
func ValidateSessionID(id string) error {
	if isSessionID(id) {
		return nil
	}
	p := problems{op: "session"}
	p.add("sessionId", "must match "+sessionIDRule)
	return p.err()
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
