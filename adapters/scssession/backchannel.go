package scssession

import (
	"context"
	"errors"
	"fmt"

	"github.com/alexedwards/scs/v2"
)

// EmbedRevoker revokes the embed sessions of every login of a subject and
// of every login made in a provider session. *middleware.Kit implements
// it (Kit.RevokeSubject, Kit.RevokeProviderSession).
type EmbedRevoker interface {
	RevokeSubject(ctx context.Context, subject string) error
	RevokeProviderSession(ctx context.Context, sid string) error
}

// EndLoginsOf ends every login of subject (Viewer.Subject, matched
// exactly) by deleting its session from the store, for OpenID Connect
// back-channel logout; a later sign-in is a new session and is not
// affected. It returns how many it ended.
//
// It lists every session of the store (scs SessionManager.Iterate), so the
// store must implement scs.IterableStore or scs.IterableCtxStore
// (ErrNotIterable otherwise), and its cost grows with the number of live
// sessions: one read of each, as scs's Iterate does. A request of that
// login already in flight, whose session scs commits when it ends (it
// changed a value, or the SessionManager has an IdleTimeout), writes the
// session back. An empty subject is an error.
func (id *Identity) EndLoginsOf(ctx context.Context, subject string) (int, error) {
	if subject == "" {
		return 0, errors.New("scssession: EndLoginsOf: empty subject")
	}
	return id.endWhere(ctx, func(s storedViewer) bool { return s.Subject == subject })
}

// EndLoginsOfSID ends every login made in the provider session sid
// (Viewer.ProviderSID), for OpenID Connect back-channel logout by a token
// that names a sid, as EndLoginsOf does for a subject; a sign-in after it
// in the same provider session is a new session and is not affected. An
// empty sid is an error.
func (id *Identity) EndLoginsOfSID(ctx context.Context, sid string) (int, error) {
	if sid == "" {
		return 0, errors.New("scssession: EndLoginsOfSID: empty sid")
	}
	return id.endWhere(ctx, func(s storedViewer) bool { return s.ProviderSID == sid })
}

// endWhere destroys every session whose login matches.
func (id *Identity) endWhere(ctx context.Context, match func(storedViewer) bool) (int, error) {
	switch id.sm.Store.(type) {
	case scs.IterableStore, scs.IterableCtxStore:
	default:
		return 0, fmt.Errorf("%w: %T", ErrNotIterable, id.sm.Store)
	}
	n := 0
	err := id.sm.Iterate(ctx, func(ctx context.Context) error {
		s, _, ok := id.stored(ctx)
		if !ok || !match(s) {
			return nil
		}
		if err := id.sm.Destroy(ctx); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("scssession: ending logins: %w", err)
	}
	return n, nil
}

// EndingLogins is the revoker for oidcclaims.BackChannelLogout in an app
// whose logins live in scs sessions: a logout token that names a subject
// ends that subject's logins (Identity.EndLoginsOf) and revokes their
// embed sessions (EmbedRevoker.RevokeSubject); one that names only a sid
// ends the logins of that provider session (Identity.EndLoginsOfSID) and
// revokes theirs (EmbedRevoker.RevokeProviderSession). Both steps run even
// when one fails, and the error joins both, so the handler answers 400
// and the provider may send the token again.
type EndingLogins struct {
	id     *Identity
	embeds EmbedRevoker
}

// EndingLogins returns the back-channel logout revoker of id and embeds
// (the Kit):
//
//	mux.Handle("POST /backchannel-logout", oidcclaims.BackChannelLogout(verifier, identity.EndingLogins(kit)))
//
// It panics when embeds is nil.
func (id *Identity) EndingLogins(embeds EmbedRevoker) *EndingLogins {
	if embeds == nil {
		panic("scssession: EndingLogins needs the revoker of embed sessions (the Kit)")
	}
	return &EndingLogins{id: id, embeds: embeds}
}

// RevokeSubject ends every login of subject and revokes its embed
// sessions (oidcclaims.SubjectRevoker).
func (e *EndingLogins) RevokeSubject(ctx context.Context, subject string) error {
	_, errHost := e.id.EndLoginsOf(ctx, subject)
	errEmbed := e.embeds.RevokeSubject(ctx, subject)
	return errors.Join(errHost, errEmbed)
}

// RevokeProviderSession ends every login made in the provider session sid
// and revokes their embed sessions (oidcclaims.ProviderSessionRevoker).
func (e *EndingLogins) RevokeProviderSession(ctx context.Context, sid string) error {
	_, errHost := e.id.EndLoginsOfSID(ctx, sid)
	errEmbed := e.embeds.RevokeProviderSession(ctx, sid)
	return errors.Join(errHost, errEmbed)
}
