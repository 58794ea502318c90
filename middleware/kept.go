package middleware

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// maxKept bounds each kind of logout a Kit keeps in memory while its
// stores do not answer (see keptLogouts): an outage of hours at thousands
// of logouts a minute stays within it, and memory stays bounded (about
// 20 MB at most) however long it lasts.
const maxKept = 100_000

// EndedLoginKeeper keeps, in the process, the ended logins an Identity
// could not write to its EndedLogins (the list did not answer), writes
// them there once it answers, and tells the Identity meanwhile which
// logins it keeps. *Kit is one: its Run (FlushRevokes) writes them.
// gorillasession.Identity.Keeper takes it. What it keeps is lost if the
// process ends before the list answers.
type EndedLoginKeeper interface {
	// KeepEndedLogin keeps the ended login with key (a
	// Viewer.SessionKey), to be recorded with list.EndLogin(ctx, key,
	// until) once list answers. It reports whether it kept it: false
	// when the keeper is full.
	KeepEndedLogin(list EndedLogins, key string, until time.Time) bool
	// EndedLoginKept reports whether the ended login with key is kept,
	// not yet recorded in its list.
	EndedLoginKept(key string) bool
}

var _ EndedLoginKeeper = (*Kit)(nil)

// keptLogin is an ended login waiting to be written to its list.
type keptLogin struct {
	list  EndedLogins
	key   string
	until time.Time
}

// keptLogouts is what logouts could not record while a store did not
// answer: ended logins an Identity could not write to its list, and host
// sessions whose minted ids could not be taken from the Store. Run
// applies them, ended logins first, once the stores answer.
type keptLogouts struct {
	mu     sync.Mutex
	logins map[string]keptLogin // by key
	takes  map[string]bool      // store keys (Viewer.Key) to take and revoke
}

// KeepEndedLogin keeps the ended login with key until list answers, and
// wakes Run. A key kept already is kept until the later until. It
// reports false, keeping nothing, for an empty key, a nil list, an until
// already past, or when 100,000 logins are kept already.
func (k *Kit) KeepEndedLogin(list EndedLogins, key string, until time.Time) bool {
	if list == nil || key == "" || !until.After(k.cfg.Now()) {
		return false
	}
	k.kept.mu.Lock()
	old, ok := k.kept.logins[key]
	switch {
	case ok:
		if until.After(old.until) {
			old.until = until
		}
		k.kept.logins[key] = old
	case len(k.kept.logins) >= maxKept:
		k.kept.mu.Unlock()
		return false
	default:
		if k.kept.logins == nil {
			k.kept.logins = map[string]keptLogin{}
		}
		k.kept.logins[key] = keptLogin{list: list, key: key, until: until}
	}
	k.kept.mu.Unlock()
	k.wakeRun()
	return true
}

// EndedLoginKept reports whether KeepEndedLogin keeps key, not yet
// written to its list.
func (k *Kit) EndedLoginKept(key string) bool {
	k.kept.mu.Lock()
	defer k.kept.mu.Unlock()
	_, ok := k.kept.logins[key]
	return ok
}

// keepTake keeps the store key whose ids a logout could not take, for Run
// to take and revoke once the Store answers, and wakes Run. It reports
// false when maxKept keys are kept.
func (k *Kit) keepTake(key string) bool {
	k.kept.mu.Lock()
	if !k.kept.takes[key] && len(k.kept.takes) >= maxKept {
		k.kept.mu.Unlock()
		return false
	}
	if k.kept.takes == nil {
		k.kept.takes = map[string]bool{}
	}
	k.kept.takes[key] = true
	k.kept.mu.Unlock()
	k.wakeRun()
	return true
}

// keptCount is the number of logins and store keys kept.
func (k *Kit) keptCount() int {
	k.kept.mu.Lock()
	defer k.kept.mu.Unlock()
	return len(k.kept.logins) + len(k.kept.takes)
}

// applyKept writes the kept ended logins to their lists, then, when
// storeUp, takes and revokes the ids of the kept store keys. Ended logins
// go first, so that no instance mints for a login after its ids are
// taken. It stops at the first store that does not answer (it is likely
// still down: one bounded call per pass rather than one per kept logout)
// and returns its error.
//
// storeUp says that the store answered a read in this pass. A Take is
// sent only then: a Take sent to a Redis that hangs runs when it resumes,
// after the kit gave up on its answer, and the ids it removed would be
// lost; a read costs nothing when that happens.
func (k *Kit) applyKept(ctx context.Context, storeUp bool) error {
	k.kept.mu.Lock()
	logins := make([]keptLogin, 0, len(k.kept.logins))
	for _, l := range k.kept.logins {
		logins = append(logins, l)
	}
	takes := make([]string, 0, len(k.kept.takes))
	for key := range k.kept.takes {
		takes = append(takes, key)
	}
	k.kept.mu.Unlock()
	if !storeUp {
		takes = nil
	}
	if len(logins)+len(takes) == 0 {
		return nil
	}
	for _, l := range logins {
		sctx, stop := detached(ctx, storeTimeout)
		err := l.list.EndLogin(sctx, l.key, l.until)
		stop()
		if err != nil {
			return fmt.Errorf("middleware: recording a kept ended login: %w", err)
		}
		k.kept.mu.Lock()
		// A later KeepEndedLogin of the key may have extended it.
		if cur, ok := k.kept.logins[l.key]; ok && !cur.until.After(l.until) {
			delete(k.kept.logins, l.key)
		}
		k.kept.mu.Unlock()
	}
	for _, key := range takes {
		sctx, stop := detached(ctx, storeTimeout)
		ms, err := k.cfg.Store.Take(sctx, key)
		stop()
		if err != nil {
			// What was taken must still be revoked; the key stays kept.
			if rerr := k.revokeAll(ctx, ms); rerr != nil {
				k.cfg.Logger.LogAttrs(ctx, slog.LevelError, "embedkit: a kept logout's ids were taken but their failed revokes could not be queued", slog.String("error", rerr.Error()))
			}
			return fmt.Errorf("%w: taking a kept logout's ids: %w", ErrStore, err)
		}
		k.kept.mu.Lock()
		delete(k.kept.takes, key)
		k.kept.mu.Unlock()
		if err := k.revokeAll(ctx, ms); err != nil {
			k.cfg.Logger.LogAttrs(ctx, slog.LevelError, "embedkit: a kept logout's ids were taken but their failed revokes could not be queued", slog.String("error", err.Error()))
		}
	}
	k.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "embedkit: kept logouts recorded", slog.Int("logins", len(logins)), slog.Int("host_sessions", len(takes)))
	return nil
}

// wakeRun makes Run look at its work soon.
func (k *Kit) wakeRun() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}
