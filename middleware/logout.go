package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/embedkit/embedkit/embedkit"
)

// retryBatch is how many queued revokes one retry step takes at a time.
const retryBatch = 64

// idlePoll is how often Run looks at an empty queue (a shared queue may
// be filled by another process).
const idlePoll = time.Minute

// Logout wraps the host's logout handler. For a POST from the same origin
// it revokes every session id minted for the viewer's host session, then
// always runs next, even when the platform is down (failed revokes are
// queued and retried by Run). Mount it where the host's logout form posts:
//
//	mux.Handle("POST /logout", kit.Logout(hostLogout))
//
// A revoke does not close an embed already open in another tab. Mark the
// logout form data-embedkit-logout (a single-page app calls the host
// script's signedOut()) and the host script ends the frames of every tab
// of the origin when it is submitted (docs/cross-tab-logout.md).
//
// When the ids cannot be read (the Store or the Identity is down) or
// failed revokes cannot be queued, next still runs, and the failure is
// logged and counted (ReportLogoutIncomplete, LogoutStepEmbeds); a
// Store that does not answer leaves the logout kept for Run (see
// RevokeRequest).
//
// After next, Logout takes the login's ids once more and revokes what it
// finds: a mint that was at the platform during the first take may have
// recorded its id since. A mint that records after that finds the login
// ended (the host's handler ended it) and revokes its own id. So a logout
// leaves no session of the login live, as long as next ends the host
// session (Identity.Clear) and the Store is not RequestScoped.
//
// GET and other methods answer 405 with Allow: POST; cross-origin POSTs
// (a foreign Origin, Sec-Fetch-Site: cross-site) answer 403, both without
// running next. The revokes run under context.WithoutCancel with their
// own deadline (Config.Revoke.Timeout), so a browser that disconnects does
// not cancel them.
func (k *Kit) Logout(next http.Handler) http.Handler {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := k.revokeRequest(w, r)
		if err != nil && !errors.Is(err, ErrNoViewer) {
			ReportLogoutIncomplete(r.Context(), k.cfg.Logger, k.cfg.Metrics, LogoutStepEmbeds, err)
		}
		next.ServeHTTP(w, r)
		if _, scoped := k.cfg.Store.(RequestScoped); err != nil || key == "" || scoped {
			return
		}
		// A mint of this login that was at the platform during the take
		// above may have recorded its id since. The host's handler has
		// ended the login now, so a mint recording later finds it ended
		// and revokes its own id (loginEndedSince): one more take of the
		// key finds the rest.
		if err := k.revokeKey(r.Context(), k.cfg.Store, key, true); err != nil {
			ReportLogoutIncomplete(r.Context(), k.cfg.Logger, k.cfg.Metrics, LogoutStepEmbeds, err)
		}
	})
	return k.postOnly(k.cop.Handler(h), false)
}

// RevokeRequest revokes every session id minted for the host session of
// r's viewer, for hosts with their own logout flow. Call it before the
// host session is destroyed and before the response header is written (a
// cookie store rewrites its cookie). It does not check the method or
// origin: that is the caller's job (or use Logout).
//
// A mint of the same login that was at the platform while RevokeRequest
// took the ids records its id afterwards. Once the host session is
// destroyed such a mint finds the login ended and revokes its own id; one
// that recorded before that is found by a second take: call
// RevokeSessionKey with the login's Viewer.SessionKey after destroying
// the host session (Logout does both takes).
//
// It returns ErrNoViewer (wrapped) when nobody is logged in, and an error
// when the ids could not be read from the store or a failed revoke could
// not be queued. Revokes that fail are queued and nil is returned. An
// Identity error of type *UnverifiedViewerError (the login could not be
// checked) still revokes that viewer's ids.
//
// When the Store does not answer (or the Identity's list of ended logins
// does not, which says the Store is likely down too), the Kit keeps the
// intent, "revoke every id of this host session", in memory, and Run
// takes and revokes the ids once the Store answers; the error wraps
// ErrStore. A store that keeps its ids in the request (RequestScoped) is
// not kept for. What the Kit keeps is lost if the process ends first:
// those ids then live until they expire (at most 24 hours).
func (k *Kit) RevokeRequest(w http.ResponseWriter, r *http.Request) error {
	_, err := k.revokeRequest(w, r)
	return err
}

// revokeRequest is RevokeRequest; it also returns the store key of the
// viewer's login, when it found the viewer.
func (k *Kit) revokeRequest(w http.ResponseWriter, r *http.Request) (key string, err error) {
	_, scoped := k.cfg.Store.(RequestScoped)
	v, err := k.viewer(r)
	if err != nil {
		// An Identity that knows who the viewer is but cannot check the
		// login (its list of ended logins is down) still names whose
		// embeds to revoke: revoking them is what logout is for.
		uv, ok := errors.AsType[*UnverifiedViewerError](err)
		if !ok || uv.Viewer == nil || strings.TrimSpace(uv.Viewer.Subject) == "" {
			return "", err
		}
		v = uv.Viewer
		if !scoped {
			// The list did not answer: the Store, most often the same
			// Redis, would likely hang this logout for its whole
			// timeout too. Run takes the ids once it answers, after
			// writing any ended login kept meanwhile.
			return v.Key(), k.keepTakeErr(v.Key(), "the login could not be checked, so its ids were not taken", uv)
		}
	}
	return v.Key(), k.revokeKey(r.Context(), k.storeFor(w, r), v.Key(), !scoped)
}

// RevokeSessionKey revokes every session id minted for the host login
// session sessionKey (a Viewer.SessionKey, the login's own key), for
// hosts that end sessions outside a request. A provider's sid is not a
// session key: for a back-channel logout that names only a sid, use
// RevokeProviderSession. With a RequestScoped store (a cookie) the ids
// live in the browser: use RevokeRequest. An empty sessionKey is an error; other errors
// are those of RevokeRequest.
func (k *Kit) RevokeSessionKey(ctx context.Context, sessionKey string) error {
	if sessionKey == "" {
		return errors.New("middleware: RevokeSessionKey: empty session key")
	}
	_, scoped := k.cfg.Store.(RequestScoped)
	return k.revokeKey(ctx, k.cfg.Store, (&Viewer{SessionKey: sessionKey}).Key(), !scoped)
}

// RevokeProviderSession revokes every session id minted for a login made
// in the identity provider's session sid (Viewer.ProviderSID), for
// OpenID Connect back-channel logout by a token that names a sid and no
// subject; it satisfies oidcclaims.ProviderSessionRevoker. It finds them
// because each mint for a viewer with a ProviderSID is kept under that
// sid too. A RequestScoped store (a cookie) keeps its ids in the browser,
// out of reach: RevokeProviderSession then returns ErrRequestScopedStore,
// so that the provider hears that the logout did not reach them. An empty
// sid is an error; other errors are those of RevokeRequest.
func (k *Kit) RevokeProviderSession(ctx context.Context, sid string) error {
	if sid == "" {
		return errors.New("middleware: RevokeProviderSession: empty sid")
	}
	if _, scoped := k.cfg.Store.(RequestScoped); scoped {
		return fmt.Errorf("middleware: RevokeProviderSession: %w", ErrRequestScopedStore)
	}
	return k.revokeKey(ctx, k.cfg.Store, providerKey(sid), true)
}

// RevokeSubject revokes every session id minted for subject across all
// host sessions, for OpenID Connect back-channel logout. It needs a store
// that implements SubjectIndex and returns ErrNoSubjectIndex otherwise.
// subject is matched as the platform matches externalId: trimmed and
// lower-cased (embedkit.NormalizeExternalID). A subject that changes
// beyond ASCII under that (embedkit.ExternalIDCaseSafe) is refused with
// an error: it could name another user, and the kit mints for none.
func (k *Kit) RevokeSubject(ctx context.Context, subject string) error {
	si, ok := k.cfg.Store.(SubjectIndex)
	if !ok {
		return ErrNoSubjectIndex
	}
	if !embedkit.ExternalIDCaseSafe(subject) {
		// Normalised, it could name another user (the Kelvin sign U+212A
		// becomes "k"); the kit never minted for such a subject.
		return errors.New("middleware: RevokeSubject: subject changes under lower-casing beyond ASCII letters (embedkit.ExternalIDCaseSafe), so it names no viewer the kit minted for")
	}
	// Records carry the subject as the platform's externalId does,
	// normalised, so "Alice" and "alice", one platform user, are one
	// subject here too. Records stored under the raw spelling by an
	// earlier version are taken as well while they live.
	norm := embedkit.NormalizeExternalID(subject)
	ms, err := si.TakeSubject(context.WithoutCancel(ctx), norm)
	if err == nil && subject != norm {
		var raw []Minted
		raw, err = si.TakeSubject(context.WithoutCancel(ctx), subject)
		ms = append(ms, raw...)
	}
	if err != nil {
		// What was taken must still be revoked (revokeAll of none is nil).
		return errors.Join(fmt.Errorf("%w: %w", ErrStore, err), k.revokeAll(ctx, ms))
	}
	return k.revokeAll(ctx, ms)
}

// revokeKey takes every id under key from s and revokes them. When s
// does not answer and keep is set, the Kit keeps key for Run (keepTake).
func (k *Kit) revokeKey(ctx context.Context, s SessionStore, key string, keep bool) error {
	tctx, cancel := detached(ctx, storeTimeout)
	ms, err := s.Take(tctx, key)
	cancel()
	if err != nil {
		// What was taken must still be revoked (revokeAll of none is nil).
		revoked := k.revokeAll(ctx, ms)
		if keep {
			return errors.Join(k.keepTakeErr(key, "the ids could not be taken", err), revoked)
		}
		return errors.Join(fmt.Errorf("%w: %w", ErrStore, err), revoked)
	}
	return k.revokeAll(ctx, ms)
}

// keepTakeErr keeps key for Run (keepTake) and returns the error that
// says so: ErrStore, what failed (what) and its cause.
func (k *Kit) keepTakeErr(key, what string, cause error) error {
	if !k.keepTake(key) {
		return fmt.Errorf("%w: %s, and %d logouts are kept already, so this one is not: %w", ErrStore, what, maxKept, cause)
	}
	return fmt.Errorf("%w: %s; kept in this process until the stores answer: %w", ErrStore, what, cause)
}

// revokeAll revokes ms, Config.Revoke.Concurrency at a time, under its own
// deadline, and queues the ones that fail. It returns an error only when
// queueing failed.
func (k *Kit) revokeAll(ctx context.Context, ms []Minted) error {
	ds := make([]Deferred, 0, len(ms))
	// An id kept under its login and its provider session comes back
	// twice from TakeSubject: it is revoked once.
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		if _, dup := seen[m.SessionID]; dup {
			continue
		}
		seen[m.SessionID] = struct{}{}
		ds = append(ds, Deferred{Minted: m})
	}
	ds = k.live(ds)
	if len(ds) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), k.cfg.Revoke.Timeout)
	defer cancel()
	start := k.cfg.Now()
	failed := k.revokeBatch(ctx, ds)
	k.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "embedkit: revoked the sessions of a host session",
		slog.Int("revoked", len(ds)-len(failed)), slog.Int("queued", len(failed)),
		slog.Duration("latency", k.cfg.Now().Sub(start)))
	if len(failed) == 0 {
		return nil
	}
	if err := k.requeue(ctx, failed); err != nil {
		k.cfg.Logger.LogAttrs(ctx, slog.LevelError, "embedkit: could not queue failed revokes", slog.Int("count", len(failed)), slog.String("error", err.Error()))
		return fmt.Errorf("middleware: queueing %d failed revokes: %w", len(failed), err)
	}
	k.reportDepth(ctx)
	k.wakeRun()
	return nil
}

// requeue counts one more failed attempt at each of ds and queues them,
// due after Config.Revoke.Backoff's wait for that attempt: the Kit is the
// one owner of the schedule.
func (k *Kit) requeue(ctx context.Context, ds []Deferred) error {
	now := k.cfg.Now()
	for i := range ds {
		ds[i].Attempts++
		ds[i].Due = now.Add(k.cfg.Revoke.Backoff.Delay(ds[i].Attempts))
	}
	return k.queue.Defer(ctx, ds)
}

// live drops records past their ExpiresAt: nothing minted from them can
// still be alive, so no revoke is needed.
func (k *Kit) live(ds []Deferred) []Deferred {
	now := k.cfg.Now()
	out := ds[:0:0]
	for _, d := range ds {
		if d.SessionID == "" {
			continue
		}
		if !d.ExpiresAt.IsZero() && !now.Before(d.ExpiresAt) {
			k.cfg.Metrics.Revoke(OutcomeExpired, 0)
			continue
		}
		out = append(out, d)
	}
	return out
}

// revokeBatch revokes ds concurrently and returns those that should be
// tried again.
func (k *Kit) revokeBatch(ctx context.Context, ds []Deferred) []Deferred {
	var (
		mu     sync.Mutex
		failed []Deferred
		wg     sync.WaitGroup
	)
	for _, d := range ds {
		// The slots are the Kit's, shared by every logout and the
		// retrier, so a mass logout cannot open more connections to the
		// platform than Revoke.Concurrency. What finds no slot before the
		// deadline goes to the retry queue.
		select {
		case k.revokeSlots <- struct{}{}:
		case <-ctx.Done():
			mu.Lock()
			failed = append(failed, d)
			mu.Unlock()
			continue
		}
		wg.Go(func() {
			defer func() { <-k.revokeSlots }()
			if !k.revokeOne(ctx, d.Minted) {
				mu.Lock()
				failed = append(failed, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

// revokeOne revokes one id and reports whether it is done with (revoked,
// or failed in a way no retry can fix).
func (k *Kit) revokeOne(ctx context.Context, m Minted) bool {
	ctx, span := k.cfg.Tracer.Start(ctx, OpRevoke)
	start := k.cfg.Now()
	err := k.cfg.Platform.RevokeSession(ctx, m.SessionID)
	latency := k.cfg.Now().Sub(start)
	session := slog.String("session", embedkit.Redact(m.SessionID))
	if err == nil {
		span.End(OutcomeOK, nil)
		k.cfg.Metrics.Revoke(OutcomeOK, latency)
		k.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "embedkit: session revoked", session, slog.String("outcome", string(OutcomeOK)), slog.Duration("latency", latency))
		return true
	}
	if errors.Is(err, embedkit.ErrInvalidRequest) {
		// Refused before the wire: no platform latency to report.
		span.End(OutcomeInvalid, err)
		k.cfg.Metrics.Revoke(OutcomeInvalid, 0)
		k.cfg.Logger.LogAttrs(ctx, slog.LevelError, "embedkit: revoke not sent", session, slog.String("outcome", string(OutcomeInvalid)), slog.String("error", err.Error()))
		return true
	}
	span.End(OutcomeQueued, err)
	k.cfg.Metrics.Revoke(OutcomeQueued, latency)
	k.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "embedkit: revoke failed; queued for retry", session, slog.String("outcome", string(OutcomeQueued)), slog.Duration("latency", latency), slog.String("error", err.Error()))
	return false
}

// reportDepth reports the retry queue's depth to Metrics.
func (k *Kit) reportDepth(ctx context.Context) {
	if n, err := k.queue.Pending(ctx); err == nil {
		k.cfg.Metrics.RevokeQueueDepth(n)
	}
}

// FlushRevokes makes one attempt at every queued revoke that is due, and
// returns how many are still queued afterwards (due later, or failed
// again and rescheduled). First it records what logouts kept in the Kit
// while a store did not answer (KeepEndedLogin, RevokeRequest): ended
// logins, then the ids of host sessions, taken and revoked; those still
// kept count as pending. Run calls it; tests and shutdown code can call
// it directly.
func (k *Kit) FlushRevokes(ctx context.Context) (pending int, err error) {
	k.flushMu.Lock()
	defer k.flushMu.Unlock()
	// The queue's answer also says whether the store answers at all:
	// kept ids are taken only then (see applyKept).
	n, err := k.queue.Pending(ctx)
	keptErr := k.applyKept(ctx, err == nil)
	defer func() {
		pending += k.keptCount()
		err = errors.Join(keptErr, err)
	}()
	if err != nil {
		return 0, fmt.Errorf("middleware: reading the revoke queue: %w", err)
	}
	var failed []Deferred
	var firstErr error
	for taken := 0; taken < n; {
		batch, err := k.queue.Due(ctx, min(retryBatch, n-taken))
		if err != nil {
			firstErr = fmt.Errorf("middleware: reading the revoke queue: %w", err)
			break
		}
		if len(batch) == 0 {
			break
		}
		taken += len(batch)
		live := k.live(batch)
		if len(live) == 0 {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, k.cfg.Revoke.Timeout)
		failed = append(failed, k.revokeBatch(rctx, live)...)
		cancel()
	}
	if len(failed) > 0 {
		if err := k.requeue(context.WithoutCancel(ctx), failed); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("middleware: re-queueing %d revokes: %w", len(failed), err)
		}
	}
	pending, err = k.queue.Pending(ctx)
	if err != nil && firstErr == nil {
		firstErr = fmt.Errorf("middleware: reading the revoke queue: %w", err)
	}
	k.cfg.Metrics.RevokeQueueDepth(pending)
	return pending, firstErr
}

// Run retries queued revokes until ctx is cancelled, then returns nil.
// While the queue holds revokes it looks at it every Revoke.Backoff.Min
// (capped at a minute) and retries those that are due; each record's own
// next attempt follows Revoke.Backoff. It wakes up soon after a logout
// queues new ones, and looks at an idle queue once a minute (a shared
// queue may be filled by another process). A pass that cannot read the
// queue is retried after a growing wait, except while the Kit keeps
// logouts that a store could not record (FlushRevokes): then every
// Revoke.Backoff.Min, so that they are recorded soon after the store
// answers again. Start it once per process:
//
//	go kit.Run(ctx)
func (k *Kit) Run(ctx context.Context) error {
	if !k.runMu.TryLock() {
		return errors.New("middleware: Run is already running for this Kit")
	}
	defer k.runMu.Unlock()
	failures := 0
	timer := time.NewTimer(k.poll)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-k.wake:
			if failures == 0 || k.keptCount() > 0 {
				timer.Reset(k.poll)
			}
			continue
		case <-timer.C:
		}
		pending, err := k.FlushRevokes(ctx)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case err != nil:
			failures++
			k.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "embedkit: revoke retry pass failed", slog.String("error", err.Error()))
			wait := max(k.poll, k.cfg.Revoke.Backoff.Delay(failures))
			if k.keptCount() > 0 {
				// Kept logouts are in memory only: look again soon,
				// one bounded call a pass, rather than after the
				// queue's growing wait.
				wait = k.poll
			}
			timer.Reset(wait)
		case pending > 0:
			failures = 0
			timer.Reset(k.poll)
		default:
			failures = 0
			timer.Reset(idlePoll)
		}
	}
}
