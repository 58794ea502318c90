package middleware_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/embedkit/embedkit/adapters/gorillasession"
	"github.com/embedkit/embedkit/adapters/redisstore"
	"github.com/embedkit/embedkit/embedkit"
	"github.com/embedkit/embedkit/embedkittest"
	"github.com/embedkit/embedkit/internal/testredis"
	"github.com/embedkit/embedkit/middleware"
)

// The Redis rows of the fault matrix: host instances with the Redis
// store and list of ended logins, whose Redis (a private redis-server or
// three-node Cluster on loopback, with go-redis's default client options)
// hangs (SIGSTOP, which a client cannot tell from a network partition),
// stops, or goes down whole. Run them with
//
//	go test -race -run TestFaultRedis -v ./middleware/
//
// -v prints the measured answer times that docs/reliability.md quotes.

const (
	// redisSlack is what an answer may take beyond the Redis timeout on a
	// loaded test machine: a check of the bound, not a speed target.
	redisSlack = 3 * time.Second
	// redisPrefix starts every key the hosts write.
	redisPrefix = "outage:"
	// redisLifetime is the session cookie's MaxAge.
	redisLifetime = time.Hour
)

// redisCookieKeys sign the session cookie of every instance alike, as
// the instances of one application do.
var redisCookieKeys = [][]byte{[]byte("0123456789abcdef0123456789abcdef"), nil}

// redisDeployment is a Redis for the hosts of one test: a single server
// or a Cluster, its nodes, and a client factory.
type redisDeployment struct {
	name  string
	nodes []*testredis.Server
}

func newRedisDeployment(t *testing.T, cluster bool) *redisDeployment {
	t.Helper()
	if cluster {
		return &redisDeployment{name: "cluster", nodes: testredis.NewCluster(t)}
	}
	return &redisDeployment{name: "single", nodes: []*testredis.Server{testredis.NewServer(t)}}
}

// client returns a new client with go-redis's default options, closed
// when the test ends.
func (d *redisDeployment) client(t *testing.T) redis.UniversalClient {
	t.Helper()
	var c redis.UniversalClient
	if len(d.nodes) > 1 {
		addrs := make([]string, len(d.nodes))
		for i, n := range d.nodes {
			addrs[i] = n.Addr
		}
		c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	} else {
		c = redis.NewClient(&redis.Options{Addr: d.nodes[0].Addr})
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// nodeOf returns the node that holds key.
func (d *redisDeployment) nodeOf(t *testing.T, c redis.UniversalClient, key string) *testredis.Server {
	t.Helper()
	cc, ok := c.(*redis.ClusterClient)
	if !ok {
		return d.nodes[0]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := cc.MasterForKey(ctx, key)
	if err != nil {
		t.Fatalf("the node of a key: %v", err)
	}
	for _, n := range d.nodes {
		if n.Addr == m.Options().Addr {
			return n
		}
	}
	t.Fatalf("key on %s, not a node of the cluster", m.Options().Addr)
	return nil
}

// redisDigest is how the Redis store names a key or subject in its key
// names (see the redisstore package documentation).
func redisDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// redisHost is one instance of a host app on a TLS loopback server: the
// Kit with the Redis store, a gorillasession.Identity with the Redis
// list of ended logins and the Kit as its Keeper, and Run retrying. POST
// /login?sub=&sid= signs in, GET /page renders a page through FrameURL,
// GET /me answers 200 for a signed-in viewer and 401 otherwise, POST
// /logout is the kit's Logout around Identity.Clear.
type redisHost struct {
	srv  *httptest.Server
	kit  *middleware.Kit
	id   *gorillasession.Identity
	list *redisstore.EndedLogins
}

func newRedisHost(t *testing.T, p *embedkittest.Platform, c redis.UniversalClient) *redisHost {
	t.Helper()
	list, err := redisstore.NewEndedLogins(c, redisLifetime, redisstore.WithPrefix(redisPrefix))
	if err != nil {
		t.Fatal(err)
	}
	store := gorillasession.SecureCookieStore(redisCookieKeys...)
	store.MaxAge(int(redisLifetime / time.Second))
	id := gorillasession.New(store, "host-session")
	cfg := p.KitConfig()
	id.EndedLogins, id.Logger, id.Metrics = list, cfg.Logger, cfg.Metrics
	cfg.Identity = id
	cfg.Store = redisstore.New(c, redisstore.WithPrefix(redisPrefix))
	cfg.Revoke.Backoff = embedkit.Backoff{Min: 200 * time.Millisecond, Max: time.Second}
	cfg.Targets = map[string]middleware.Target{"sales": {Kind: middleware.KindDashboard, PublicID: "sales-overview"}}
	kit, err := middleware.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	id.Keeper = kit
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = kit.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })

	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if err := id.Save(w, r, &middleware.Viewer{Subject: q.Get("sub"), SessionKey: q.Get("sid")}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		if _, err := id.Viewer(r); err != nil {
			kit.ServeError(w, r, err)
		}
	})
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		t, _ := kit.Target("sales")
		src, err := kit.FrameURL(w, r, t)
		if err != nil {
			kit.ServeError(w, r, err)
			return
		}
		_, _ = w.Write([]byte(`<iframe src="` + src + `"></iframe>`))
	})
	mux.Handle("GET "+middleware.DefaultFramePrefix, kit.FrameHandler())
	mux.Handle("POST "+kit.SessionPath(), kit.SessionHandler())
	mux.Handle("POST /logout", kit.Logout(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = id.Clear(w, r) // ErrNotRecorded during an outage: the Keeper keeps it
		w.Header().Set("Location", "/")
		w.WriteHeader(http.StatusSeeOther)
	})))
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return &redisHost{srv: srv, kit: kit, id: id, list: list}
}

// browser returns a client with a cookie jar that follows no redirect.
func (h *redisHost) browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := *h.srv.Client() // a copy: the server's client is shared
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.Timeout = 2 * time.Minute // the old code answered after up to 85 s
	return &c
}

// redisAnswer is one answer and how long it took.
type redisAnswer struct {
	status     int
	retryAfter string
	took       time.Duration
	cookies    []*http.Cookie
}

// do sends one request with the cookie cookie (when not nil) and the
// browser's jar, and times it.
func (h *redisHost) do(t *testing.T, c *http.Client, method, path, body string, cookie *http.Cookie) redisAnswer {
	t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return redisAnswer{}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if cookie != nil {
		req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
	}
	start := time.Now()
	resp, err := c.Do(req)
	took := time.Since(start)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return redisAnswer{took: took}
	}
	resp.Body.Close()
	return redisAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), took: took, cookies: resp.Cookies()}
}

// redisLoad is a kind of signed-in request that reads the list of ended
// logins and, but for /me, mints and stores the id.
type redisLoad struct {
	name, method, path, body string
	ok                       int
}

func (h *redisHost) loads() []redisLoad {
	return []redisLoad{
		{"frame", http.MethodGet, middleware.DefaultFramePrefix + "sales", "", http.StatusSeeOther},
		{"page", http.MethodGet, "/page", "", http.StatusOK},
		{"JSON", http.MethodPost, h.kit.SessionPath(), `{"target":"sales"}`, http.StatusOK},
	}
}

// signIn signs sub in with the login key sid and returns the cookie.
func (h *redisHost) signIn(t *testing.T, c *http.Client, sub, sid string) *http.Cookie {
	t.Helper()
	if a := h.do(t, c, http.MethodPost, "/login?sub="+sub+"&sid="+sid, "", nil); a.status != http.StatusOK {
		t.Fatalf("login: %d", a.status)
	}
	u, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/", nil)
	for _, ck := range c.Jar.Cookies(u.URL) {
		if ck.Name == "host-session" {
			return ck
		}
	}
	t.Fatal("no session cookie after login")
	return nil
}

// outageAnswers sends every kind of load at once and checks that each
// answers 503 with Retry-After within bound, logging the times.
func (h *redisHost) outageAnswers(t *testing.T, c *http.Client, what string, bound time.Duration) {
	t.Helper()
	var wg sync.WaitGroup
	for _, l := range h.loads() {
		wg.Go(func() {
			a := h.do(t, c, l.method, l.path, l.body, nil)
			t.Logf("%s: %s load answered %d in %s", what, l.name, a.status, a.took.Round(10*time.Millisecond))
			if a.status != http.StatusServiceUnavailable || a.retryAfter == "" {
				t.Errorf("%s: %s load answered %d with Retry-After %q; want 503 with Retry-After", what, l.name, a.status, a.retryAfter)
			}
			if a.took > bound {
				t.Errorf("%s: %s load answered after %s, beyond %s", what, l.name, a.took, bound)
			}
		})
	}
	wg.Wait()
}

// recovers checks that every kind of load succeeds again within a while,
// without restarting the instance.
func (h *redisHost) recovers(t *testing.T, c *http.Client, what string) {
	t.Helper()
	for _, l := range h.loads() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			a := h.do(t, c, l.method, l.path, l.body, nil)
			if a.status == l.ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the %s load still answers %d 30 s after Redis came back", what, l.name, a.status)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// TestFaultRedisNodeHangs: a Redis node that hangs (SIGSTOP) while a
// signed-in viewer loads a frame, a page (FrameURL) and the JSON endpoint
// at once: each answers 503 with Retry-After (an outage, retry later)
// within redisstore.DefaultTimeout and some slack, whichever key's node
// hangs: the ended-logins records (by subject, by login key), read on
// every request, or the minted ids and the subject index, written after
// the mint. Once the node resumes, the same instance serves again.
func TestFaultRedisNodeHangs(t *testing.T) {
	bound := redisstore.DefaultTimeout + redisSlack
	for _, cluster := range []bool{false, true} {
		t.Run(map[bool]string{false: "single", true: "cluster"}[cluster], func(t *testing.T) {
			d := newRedisDeployment(t, cluster)
			c := d.client(t)
			p := embedkittest.NewPlatform(t)
			h := newRedisHost(t, p, c)
			ana := h.browser(t)
			h.signIn(t, ana, "ana", "login-1")
			h.recovers(t, ana, "before the fault")
			keys := map[string]string{
				"ended logins by subject":   redisPrefix + "ended:s:" + redisDigest("ana"),
				"ended logins by login key": redisPrefix + "ended:k:" + redisDigest("login-1"),
				"minted ids":                redisPrefix + "k:" + redisDigest("s:login-1"),
				"subject index":             redisPrefix + "u:" + redisDigest("ana"),
			}
			if !cluster {
				keys = map[string]string{"the server": ""}
			}
			for what, key := range keys {
				t.Run(what, func(t *testing.T) {
					node := d.nodeOf(t, c, key)
					node.Pause(t)
					resumed := false
					t.Cleanup(func() {
						if !resumed {
							node.Resume(t)
						}
					})
					h.outageAnswers(t, ana, d.name+", node of "+what+" hung", bound)
					node.Resume(t)
					resumed = true
					h.recovers(t, ana, what)
				})
			}
		})
	}
}

// TestFaultRedisDown: a Redis node that is stopped (killed: connections
// are refused), and the whole deployment down: every kind of load answers
// 503 with Retry-After within the bound, a logout answers within the
// bound of its two calls, and the instance serves again once Redis is
// restarted, without being restarted itself.
func TestFaultRedisDown(t *testing.T) {
	bound := redisstore.DefaultTimeout + redisSlack
	tests := []struct {
		name    string
		cluster bool
		// kill picks the nodes to stop.
		kill func(t *testing.T, d *redisDeployment, c redis.UniversalClient) []*testredis.Server
	}{
		{"single server stopped", false, func(t *testing.T, d *redisDeployment, _ redis.UniversalClient) []*testredis.Server {
			return d.nodes
		}},
		{"cluster node stopped", true, func(t *testing.T, d *redisDeployment, c redis.UniversalClient) []*testredis.Server {
			return []*testredis.Server{d.nodeOf(t, c, redisPrefix+"ended:s:"+redisDigest("ana"))}
		}},
		{"whole cluster down", true, func(t *testing.T, d *redisDeployment, _ redis.UniversalClient) []*testredis.Server {
			return d.nodes
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newRedisDeployment(t, tt.cluster)
			c := d.client(t)
			p := embedkittest.NewPlatform(t)
			h := newRedisHost(t, p, c)
			ana := h.browser(t)
			h.signIn(t, ana, "ana", "login-1")
			h.recovers(t, ana, "before the fault")
			leaving := h.browser(t)
			h.signIn(t, leaving, "ana", "login-2")
			down := tt.kill(t, d, c)
			for _, n := range down {
				n.Kill(t)
			}
			h.outageAnswers(t, ana, tt.name, bound)
			out := h.do(t, leaving, http.MethodPost, "/logout", "", nil)
			t.Logf("%s: logout answered %d in %s", tt.name, out.status, out.took.Round(10*time.Millisecond))
			if out.status != http.StatusSeeOther || out.took > 2*redisstore.DefaultTimeout+redisSlack {
				t.Errorf("%s: logout answered %d after %s; want 303 within %s", tt.name, out.status, out.took, 2*redisstore.DefaultTimeout+redisSlack)
			}
			for _, n := range down {
				n.Restart(t)
			}
			if tt.cluster {
				testredis.WaitCluster(t, d.nodes)
			}
			h.recovers(t, ana, tt.name)
		})
	}
}

// TestFaultRedisLogoutDuringOutage: ana, signed in on two instances A
// and B of a host that share a Redis, logs out on A while every Redis node
// hangs. The logout answers within the bound of its two Redis calls (the
// login check and the ended-login write), expires the cookie, and A
// refuses a copy of the pre-logout cookie at once (its Kit keeps the
// ended login). Once Redis resumes, without restarting A or B, A's Run
// writes the ended login, so B refuses the copy too, and takes and
// revokes every embed session of the login, those minted on B included.
func TestFaultRedisLogoutDuringOutage(t *testing.T) {
	bound := 2*redisstore.DefaultTimeout + redisSlack
	for _, cluster := range []bool{false, true} {
		t.Run(map[bool]string{false: "single", true: "cluster"}[cluster], func(t *testing.T) {
			d := newRedisDeployment(t, cluster)
			p := embedkittest.NewPlatform(t)
			a := newRedisHost(t, p, d.client(t))
			b := newRedisHost(t, p, d.client(t))
			ana := a.browser(t)
			cookie := a.signIn(t, ana, "ana", "login-1")
			for _, h := range []*redisHost{a, a, b} {
				if got := h.do(t, ana, http.MethodGet, middleware.DefaultFramePrefix+"sales", "", cookie); got.status != http.StatusSeeOther {
					t.Fatalf("frame load before the outage: %d", got.status)
				}
			}
			other := b.browser(t)
			b.signIn(t, other, "bob", "login-2")
			bobs := b.do(t, other, http.MethodGet, middleware.DefaultFramePrefix+"sales", "", nil)
			if bobs.status != http.StatusSeeOther {
				t.Fatalf("another login's frame load: %d", bobs.status)
			}

			for _, n := range d.nodes {
				n.Pause(t)
			}
			resumed := false
			t.Cleanup(func() {
				if !resumed {
					for _, n := range d.nodes {
						n.Resume(t)
					}
				}
			})
			out := a.do(t, ana, http.MethodPost, "/logout", "", nil)
			t.Logf("%s hung: logout answered %d in %s", d.name, out.status, out.took.Round(10*time.Millisecond))
			if out.status != http.StatusSeeOther {
				t.Fatalf("logout during the outage: %d, want 303", out.status)
			}
			if out.took > bound {
				t.Errorf("logout during the outage answered after %s, beyond %s", out.took, bound)
			}
			expired := false
			for _, ck := range out.cookies {
				expired = expired || (ck.Name == cookie.Name && ck.MaxAge < 0)
			}
			if !expired {
				t.Error("logout during the outage did not expire the cookie")
			}
			thief := a.browser(t)
			if got := a.do(t, thief, http.MethodGet, "/me", "", cookie); got.status != http.StatusUnauthorized {
				t.Errorf("a copy of the pre-logout cookie on A during the outage: %d, want 401 (A keeps the ended login)", got.status)
			}

			for _, n := range d.nodes {
				n.Resume(t)
			}
			resumed = true
			back := time.Now()
			deadline := back.Add(30 * time.Second)
			for {
				ended, err := b.list.LoginEnded(context.Background(), middleware.Login{Subject: "ana", Key: "login-1", Issued: time.Now().Add(-time.Minute)})
				revoked := true
				for _, s := range p.Emulator().Sessions() {
					if s.ExternalID == "ana" && s.State != "revoked" {
						revoked = false
					}
				}
				if err == nil && ended && revoked {
					t.Logf("%s resumed: the kept logout was recorded and its embeds revoked within %s", d.name, time.Since(back).Round(100*time.Millisecond))
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("30 s after Redis resumed: login recorded as ended %v (err %v), every embed session of ana revoked %v", ended, err, revoked)
				}
				time.Sleep(200 * time.Millisecond)
			}
			embedkittest.AssertRevoked(t, p, "ana")
			for name, h := range map[string]*redisHost{"A": a, "B": b} {
				if got := h.do(t, thief, http.MethodGet, "/me", "", cookie); got.status != http.StatusUnauthorized {
					t.Errorf("a copy of the pre-logout cookie on %s after the outage: %d, want 401", name, got.status)
				}
				if got := h.do(t, thief, http.MethodGet, middleware.DefaultFramePrefix+"sales", "", cookie); got.status != http.StatusUnauthorized {
					t.Errorf("a frame load with a copy of the pre-logout cookie on %s after the outage: %d, want 401", name, got.status)
				}
			}
			embedkittest.AssertLive(t, p, "bob")
		})
	}
}

// TestFaultRedisLogoutWhileIdsNodeHangs: on a Redis Cluster, the node
// that holds a login's minted ids hangs during its logout, while the
// nodes of the ended logins answer. The logout records the ended login,
// gives up on taking the ids at the timeout and keeps the take; the
// command the node was sent runs when it resumes, after the kit stopped
// waiting for its answer. Every embed session of the login must still be
// revoked once the node is back (the store's take reads, then deletes
// only what it read, so a read given up on removes nothing), and
// another login's sessions stay live.
func TestFaultRedisLogoutWhileIdsNodeHangs(t *testing.T) {
	d := newRedisDeployment(t, true)
	c := d.client(t)
	p := embedkittest.NewPlatform(t)
	a := newRedisHost(t, p, c)
	// A login whose ids live on a node other than those of its ended
	// logins, so that the logout's login check and its record answer.
	login := ""
	for n := 1; n <= 100 && login == ""; n++ {
		l := fmt.Sprintf("login-%d", n)
		ids := d.nodeOf(t, c, redisPrefix+"k:"+redisDigest("s:"+l))
		if ids != d.nodeOf(t, c, redisPrefix+"ended:s:"+redisDigest("ana")) && ids != d.nodeOf(t, c, redisPrefix+"ended:k:"+redisDigest(l)) {
			login = l
		}
	}
	if login == "" {
		t.Fatal("no login key of 100 puts its ids on a node of their own")
	}
	ana := a.browser(t)
	a.signIn(t, ana, "ana", login)
	for range 2 {
		if got := a.do(t, ana, http.MethodGet, middleware.DefaultFramePrefix+"sales", "", nil); got.status != http.StatusSeeOther {
			t.Fatalf("frame load before the fault: %d", got.status)
		}
	}
	bob := a.browser(t)
	a.signIn(t, bob, "bob", "login-of-bob")
	if got := a.do(t, bob, http.MethodGet, middleware.DefaultFramePrefix+"sales", "", nil); got.status != http.StatusSeeOther {
		t.Fatalf("another login's frame load: %d", got.status)
	}

	node := d.nodeOf(t, c, redisPrefix+"k:"+redisDigest("s:"+login))
	node.Pause(t)
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			node.Resume(t)
		}
	})
	out := a.do(t, ana, http.MethodPost, "/logout", "", nil)
	t.Logf("the ids' node hung: logout answered %d in %s", out.status, out.took.Round(10*time.Millisecond))
	if bound := 2*redisstore.DefaultTimeout + redisSlack; out.status != http.StatusSeeOther || out.took > bound {
		t.Errorf("logout while the ids' node hangs: %d after %s, want 303 within %s", out.status, out.took, bound)
	}
	// Let the kept take be tried against the hung node too.
	time.Sleep(redisstore.DefaultTimeout)
	node.Resume(t)
	resumed = true
	back := time.Now()
	for {
		live := 0
		for _, s := range p.Emulator().Sessions() {
			if s.ExternalID == "ana" && s.State != "revoked" {
				live++
			}
		}
		if live == 0 {
			t.Logf("the node resumed: every embed session of the login revoked within %s", time.Since(back).Round(100*time.Millisecond))
			break
		}
		if time.Since(back) > 30*time.Second {
			t.Fatalf("30 s after the ids' node resumed, %d embed sessions of ana are still live: the hung take removed them unseen", live)
		}
		time.Sleep(200 * time.Millisecond)
	}
	embedkittest.AssertRevoked(t, p, "ana")
	embedkittest.AssertLive(t, p, "bob")
}
