package gorillasession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/sessions"

	"github.com/embedkit/embedkit/middleware"
)

// Store keeps the session ids minted for a login in the host session itself
// (the cookie), with no server state. It implements
// middleware.RequestScoped: the kit calls ForRequest and uses the returned
// store for that request. Store itself holds no request, so its own Add and
// Take return an error.
//
// Records are (session id, subject, expiry) and are dropped once expired.
// The session cookie stays within MaxCookieBytes: when a new record does not
// fit, the records that expire first are dropped until it does, and those
// ids can then no longer be revoked at logout. Add fails only when not even
// the new record fits next to the viewer.
//
// Each response carries the whole cookie, so when one browser sends two
// requests at once the last response wins, and an id minted by the other
// one is not kept. Where every id must be revoked, use a server-side store.
// Store does not implement middleware.SubjectIndex: back-channel logout
// cannot reach cookie records (pair it with Identity.EndedLogins).
type Store struct {
	id *Identity
}

var (
	_ middleware.SessionStore  = (*Store)(nil)
	_ middleware.RequestScoped = (*Store)(nil)
)

// SessionStore returns the Store that keeps minted session ids in the same
// session as the viewer.
func (id *Identity) SessionStore() *Store { return &Store{id: id} }

var errNoRequest = errors.New("gorillasession: the cookie store keeps records in the request; use it through ForRequest")

// errEmptyID is returned by Add for a record without a session id.
var errEmptyID = errors.New("gorillasession: record has no session id")

// Add returns an error: records need a request; see ForRequest.
func (s *Store) Add(context.Context, string, middleware.Minted) error { return errNoRequest }

// Take returns an error: records need a request; see ForRequest.
func (s *Store) Take(context.Context, string) ([]middleware.Minted, error) { return nil, errNoRequest }

// ForRequest returns a SessionStore that reads the records from r's session
// and writes the updated cookie to w. Use it before the response header is
// written, and for this request only.
func (s *Store) ForRequest(w http.ResponseWriter, r *http.Request) middleware.SessionStore {
	return &requestStore{id: s.id, w: w, r: r}
}

type requestStore struct {
	id *Identity
	w  http.ResponseWriter
	r  *http.Request
	mu sync.Mutex
}

// storedMinted is one record in the cookie; E is unix milliseconds.
type storedMinted struct {
	I string
	S string
	E int64
}

// recordList is the records of one key. It encodes compactly, as it shares
// the cookie with the viewer: each record is [id, expiry] when its subject
// is the previous record's, else [id, expiry, subject].
type recordList []storedMinted

// MarshalJSON implements json.Marshaler.
func (l recordList) MarshalJSON() ([]byte, error) {
	out := make([][]any, len(l))
	prev := ""
	for i, r := range l {
		if r.S == prev {
			out[i] = []any{r.I, r.E}
		} else {
			out[i] = []any{r.I, r.E, r.S}
		}
		prev = r.S
	}
	return json.Marshal(out)
}

// UnmarshalJSON implements json.Unmarshaler.
func (l *recordList) UnmarshalJSON(b []byte) error {
	var raw [][]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(recordList, len(raw))
	prev := ""
	for i, item := range raw {
		if len(item) != 2 && len(item) != 3 {
			return fmt.Errorf("record %d: %d fields", i, len(item))
		}
		r := storedMinted{S: prev}
		if err := json.Unmarshal(item[0], &r.I); err != nil {
			return fmt.Errorf("record %d: id: %w", i, err)
		}
		if err := json.Unmarshal(item[1], &r.E); err != nil {
			return fmt.Errorf("record %d: expiry: %w", i, err)
		}
		if len(item) == 3 {
			if err := json.Unmarshal(item[2], &r.S); err != nil {
				return fmt.Errorf("record %d: subject: %w", i, err)
			}
		}
		out[i], prev = r, r.S
	}
	*l = out
	return nil
}

func (rs *requestStore) Add(ctx context.Context, key string, m middleware.Minted) error {
	if m.SessionID == "" {
		return errEmptyID
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	sess, err := rs.id.session(rs.r)
	if err != nil {
		return err
	}
	now := rs.id.now()
	if !now.Before(m.ExpiresAt) {
		return nil // nothing minted from it can be alive
	}
	recs := live(readMinted(sess), now)
	// An id already under key is replaced: kept once, as last added.
	kept := slices.DeleteFunc(recs[key], func(r storedMinted) bool { return r.I == m.SessionID })
	recs[key] = append(kept, storedMinted{I: m.SessionID, S: m.Subject, E: m.ExpiresAt.UnixMilli()})
	for {
		err := writeMinted(rs.w, rs.r, sess, recs)
		if !errors.Is(err, ErrCookieTooLarge) {
			return err
		}
		if !dropOldest(recs, key, m.SessionID) {
			return fmt.Errorf("gorillasession: minted session id not kept: %w", err)
		}
	}
}

func (rs *requestStore) Take(ctx context.Context, key string) ([]middleware.Minted, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	sess, err := rs.id.session(rs.r)
	if err != nil {
		return nil, err
	}
	all := readMinted(sess)
	if len(all) == 0 {
		return nil, nil
	}
	recs := live(all, rs.id.now())
	taken := recs[key]
	delete(recs, key)
	if err := writeMinted(rs.w, rs.r, sess, recs); err != nil {
		return nil, err
	}
	out := make([]middleware.Minted, len(taken))
	for i, t := range taken {
		out[i] = middleware.Minted{SessionID: t.I, Subject: t.S, ExpiresAt: time.UnixMilli(t.E).UTC()}
	}
	return out, nil
}

// readMinted decodes the records of sess; a value that does not decode
// counts as none.
func readMinted(sess *sessions.Session) map[string]recordList {
	raw, ok := sess.Values[mintedValue].(string)
	if !ok {
		return nil
	}
	recs, ok := decodeRecords(raw)
	if !ok {
		return nil
	}
	return recs
}

// live returns a copy of recs without expired records.
func live(recs map[string]recordList, now time.Time) map[string]recordList {
	out := make(map[string]recordList, len(recs))
	for k, list := range recs {
		var kept recordList
		for _, r := range list {
			if now.Before(time.UnixMilli(r.E)) {
				if kept == nil {
					kept = make(recordList, 0, len(list))
				}
				kept = append(kept, r)
			}
		}
		if kept != nil {
			out[k] = kept
		}
	}
	return out
}

// writeMinted stores recs in sess and saves it within the size bound. On
// failure the session's previous value is restored.
func writeMinted(w http.ResponseWriter, r *http.Request, sess *sessions.Session, recs map[string]recordList) error {
	old, had := sess.Values[mintedValue]
	if len(recs) == 0 {
		delete(sess.Values, mintedValue)
	} else {
		sess.Values[mintedValue] = encodeRecords(recs)
	}
	err := saveBounded(w, r, sess)
	if err != nil {
		if had {
			sess.Values[mintedValue] = old
		} else {
			delete(sess.Values, mintedValue)
		}
	}
	return err
}

// dropOldest removes the record that expires first, other than the one
// being added (keepKey, keepID). It reports false when there is none.
func dropOldest(recs map[string]recordList, keepKey, keepID string) bool {
	bestKey, bestIdx := "", -1
	var bestE int64
	for k, list := range recs {
		for i, r := range list {
			if k == keepKey && r.I == keepID && i == len(list)-1 {
				continue
			}
			if bestIdx < 0 || r.E < bestE {
				bestKey, bestIdx, bestE = k, i, r.E
			}
		}
	}
	if bestIdx < 0 {
		return false
	}
	recs[bestKey] = slices.Delete(recs[bestKey], bestIdx, bestIdx+1)
	if len(recs[bestKey]) == 0 {
		delete(recs, bestKey)
	}
	return true
}
