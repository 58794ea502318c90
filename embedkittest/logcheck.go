package embedkittest

import (
	"context"
	"encoding"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
)

// LogChecker is a slog.Handler that fails a test when a log record holds
// a secret: the API key, an embed session id or token the Platform
// handed out so far, a secret of Platform.AddSecret, or one added with
// Add. It looks at the message and at every attribute, the logger's own
// (Logger.With) and the record's, through groups and LogValuers, in each
// form the standard handlers would print (String, Error, MarshalText,
// %+v and JSON). Each distinct leak fails the test once, with t.Errorf
// and a message that names the secret by label and embedkit.Redact
// fingerprint, never the secret itself.
//
// Every record is checked, whatever its level, and then handed to the
// next handler, if any, when that one is enabled for the level. Records
// that arrive after the test's cleanup has run are not checked (a
// goroutine that outlives its test must not fail it). A LogChecker is
// safe for concurrent use.
type LogChecker struct {
	st     *logState
	next   slog.Handler
	pre    []qualified // attributes of WithAttrs, with their group path
	groups string      // group path of WithGroup, "a.b." form
}

var _ slog.Handler = (*LogChecker)(nil)

// qualified is an attribute with the group path it was added under.
type qualified struct {
	path string
	attr slog.Attr
}

// logState is shared by a LogChecker and the handlers derived from it.
type logState struct {
	rep      *reporter
	p        *Platform
	sessions bool // ask the emulator for its sessions on each record

	mu    sync.Mutex
	added []secret
}

// NewLogChecker returns a LogChecker that reports to t. p may be nil, for
// a check of the secrets added with Add only. next, when not nil,
// receives each record after the check; nil drops it. Use it as the
// handler of a logger:
//
//	logger := slog.New(embedkittest.NewLogChecker(t, p, slog.NewTextHandler(&buf, nil)))
//
// The Platform's Client and KitConfig's Logger already log through one.
func NewLogChecker(t testing.TB, p *Platform, next slog.Handler) *LogChecker {
	return newLogChecker(t, p, next, true)
}

func newLogChecker(t testing.TB, p *Platform, next slog.Handler, sessions bool) *LogChecker {
	return &LogChecker{st: &logState{rep: newReporter(t, true), p: p, sessions: sessions && p != nil}, next: next}
}

// Add makes c, and the handlers derived from it, look for value too,
// named label in failure messages. An empty value is ignored; any other
// is matched as given, however short.
func (c *LogChecker) Add(label, value string) {
	if value == "" {
		return
	}
	c.st.mu.Lock()
	c.st.added = append(c.st.added, secret{label: label, value: value})
	c.st.mu.Unlock()
}

func (s *logState) secrets() []secret {
	out := s.p.secrets(s.sessions)
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(out, s.added...)
}

// Enabled reports true for every level: a debug record that leaks is a
// leak waiting for someone to turn debug logging on.
func (c *LogChecker) Enabled(context.Context, slog.Level) bool { return true }

// Handle checks r, then passes it on.
func (c *LogChecker) Handle(ctx context.Context, r slog.Record) error {
	secrets := c.st.secrets()
	if len(secrets) > 0 {
		where := "log record " + quote(r.Message) + " (" + r.Level.String() + ")"
		c.st.rep.check(where+", message", r.Message, secrets)
		for _, q := range c.pre {
			c.checkAttr(where, q.path, q.attr, secrets)
		}
		r.Attrs(func(a slog.Attr) bool {
			c.checkAttr(where, c.groups, a, secrets)
			return true
		})
	}
	if c.next != nil && c.next.Enabled(ctx, r.Level) {
		return c.next.Handle(ctx, r)
	}
	return nil
}

// checkAttr checks one attribute, its key and its value, and the members
// of a group.
func (c *LogChecker) checkAttr(where, path string, a slog.Attr, secrets []secret) {
	v := a.Value.Resolve()
	key := path + a.Key
	c.st.rep.check(where+", attribute key "+quote(key), a.Key, secrets)
	switch v.Kind() {
	case slog.KindGroup:
		inner := path
		if a.Key != "" {
			inner = key + "."
		}
		for _, m := range v.Group() {
			c.checkAttr(where, inner, m, secrets)
		}
	case slog.KindAny:
		for _, text := range anyTexts(v.Any()) {
			c.st.rep.check(where+", attribute "+quote(key), text, secrets)
		}
	default:
		c.st.rep.check(where+", attribute "+quote(key), v.String(), secrets)
	}
}

// anyTexts returns the ways a handler may print x: slog's text handler
// uses MarshalText or %+v, its JSON handler Error or encoding/json.
func anyTexts(x any) []string {
	var out []string
	switch v := x.(type) {
	case error:
		out = append(out, v.Error())
	case []byte:
		out = append(out, string(v))
	case encoding.TextMarshaler:
		if b, err := v.MarshalText(); err == nil {
			out = append(out, string(b))
		}
	}
	out = append(out, fmt.Sprintf("%+v", x))
	if b, err := json.Marshal(x); err == nil {
		out = append(out, string(b))
	}
	return out
}

// WithAttrs returns a LogChecker that checks attrs with every record.
func (c *LogChecker) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return c
	}
	d := *c
	d.pre = make([]qualified, 0, len(c.pre)+len(attrs))
	d.pre = append(d.pre, c.pre...)
	for _, a := range attrs {
		d.pre = append(d.pre, qualified{path: c.groups, attr: a})
	}
	if c.next != nil {
		d.next = c.next.WithAttrs(attrs)
	}
	return &d
}

// WithGroup returns a LogChecker whose later attributes are in group
// name.
func (c *LogChecker) WithGroup(name string) slog.Handler {
	if name == "" {
		return c
	}
	d := *c
	d.groups = c.groups + name + "."
	if c.next != nil {
		d.next = c.next.WithGroup(name)
	}
	return &d
}
