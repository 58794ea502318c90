package oidcclaims

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/coreos/go-oidc/v3/oidc"
)

// ErrUserInfoSubject is returned by MergeUserInfo when the user info
// response is about another user than the ID token: OpenID Connect Core
// 1.0, 5.3.2 says its claims must not be used then.
var ErrUserInfoSubject = errors.New("oidcclaims: the user info sub is not the ID token's")

// MergeUserInfo returns the claims of one sign-in from its two sources:
// the ID token's claims (idClaims, as decoded from the verified token) and
// the user info response u. A provider may return profile claims (name,
// email, locale, zoneinfo, groups) from the user info endpoint only, as
// OpenID Connect Core 1.0, 5.4 allows and many providers do by default;
// mapping the ID token alone then leaves the viewer without them.
//
// The user info sub must equal the ID token's (ErrUserInfoSubject
// otherwise). A claim present in both keeps the ID token's value: the ID
// token is signed and checked, the user info answer is only as good as
// the TLS connection it came over. idClaims is not modified.
func MergeUserInfo(idClaims map[string]any, u *oidc.UserInfo) (map[string]any, error) {
	if u == nil {
		return nil, errors.New("oidcclaims: MergeUserInfo: nil user info")
	}
	sub, _ := idClaims["sub"].(string)
	if sub == "" {
		return nil, errors.New("oidcclaims: MergeUserInfo: the ID token claims have no sub")
	}
	if u.Subject != sub {
		return nil, ErrUserInfoSubject
	}
	extra, err := userInfoClaims(u)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(idClaims)
	for k, v := range extra {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out, nil
}

// userInfoClaims decodes the claims of a user info response, keeping
// numbers exact.
func userInfoClaims(u *oidc.UserInfo) (map[string]any, error) {
	var raw json.RawMessage
	if err := u.Claims(&raw); err != nil {
		return nil, fmt.Errorf("oidcclaims: user info claims: %w", err)
	}
	claims, err := decodeClaims(raw)
	if err != nil {
		return nil, fmt.Errorf("oidcclaims: user info claims: %w", err)
	}
	return claims, nil
}
