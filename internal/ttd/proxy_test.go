package ttd

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock always says t0 and never waits; it records every time a
// chunk was scheduled for.
type fakeClock struct {
	t0 time.Time
	mu sync.Mutex
	// dues are the times SleepUntil was asked to wait until.
	dues []time.Time
}

func (c *fakeClock) Now() time.Time { return c.t0 }

func (c *fakeClock) SleepUntil(t time.Time, stop <-chan struct{}) bool {
	c.mu.Lock()
	c.dues = append(c.dues, t)
	c.mu.Unlock()
	select {
	case <-stop:
		return false
	default:
		return true
	}
}

func (c *fakeClock) scheduled() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]time.Duration, len(c.dues))
	for i, d := range c.dues {
		out[i] = d.Sub(c.t0)
	}
	return out
}

// server starts a loopback TCP server that runs handle for each
// connection, stopped when t ends.
func server(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); handle(c) }()
		}
	}()
	return ln.Addr().String()
}

// echo copies what it reads back, and half-closes when its client does.
func echo(c net.Conn) {
	_, _ = io.Copy(c, c)
	_ = c.(*net.TCPConn).CloseWrite()
}

func newTestProxy(t *testing.T, cfg ProxyConfig) *Proxy {
	t.Helper()
	p, err := NewProxy(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func dial(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // a bound, not an assertion
	return c.(*net.TCPConn)
}

func TestProxyBytesIntactAndInOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		size  int
		write int // bytes per write
		queue int
	}{
		{"one small write", 5, 5, 0},
		{"many writes", 1 << 20, 1000, 0},
		{"large writes, short queue", 4 << 20, 64 << 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{t0: time.Unix(1e9, 0)}
			p := newTestProxy(t, ProxyConfig{Target: server(t, echo), Clock: clock, Queue: tc.queue})
			c := dial(t, p.Addr())
			want := make([]byte, tc.size)
			r := rand.New(rand.NewPCG(1, uint64(tc.size)))
			for i := range want {
				want[i] = byte(r.UintN(256))
			}
			errc := make(chan error, 1)
			go func() {
				for b := want; len(b) > 0; {
					n := min(tc.write, len(b))
					if _, err := c.Write(b[:n]); err != nil {
						errc <- err
						return
					}
					b = b[n:]
				}
				errc <- c.CloseWrite()
			}()
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("read through the proxy: %v", err)
			}
			if err := <-errc; err != nil {
				t.Fatalf("write through the proxy: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes back, want the %d sent, in order (first difference at %d)", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestProxySchedule checks, with a clock that never moves, that every
// chunk is held for the delay and the first bytes of a connection for one
// round trip more when ChargeConnect is set.
func TestProxySchedule(t *testing.T) {
	const delay = 7 * time.Millisecond
	for _, charge := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "charge connect"}[charge], func(t *testing.T) {
			clock := &fakeClock{t0: time.Unix(1e9, 0)}
			p := newTestProxy(t, ProxyConfig{Target: server(t, echo), Delay: delay, ChargeConnect: charge, Clock: clock})
			c := dial(t, p.Addr())
			for _, m := range []string{"hello", "world"} {
				if _, err := c.Write([]byte(m)); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, len(m))
				if _, err := io.ReadFull(c, buf); err != nil {
					t.Fatal(err)
				}
			}
			_ = c.CloseWrite()
			if _, err := io.ReadAll(c); err != nil {
				t.Fatal(err)
			}
			_ = p.Close()
			got := clock.scheduled()
			// Two chunks each way and one end each way.
			if len(got) != 6 {
				t.Fatalf("scheduled %d chunks %v, want 6 (two each way, and each way's end)", len(got), got)
			}
			long := 0
			for _, d := range got {
				switch d {
				case delay:
				case 3 * delay:
					long++
				default:
					t.Errorf("a chunk was scheduled %s after it was read, want %s", d, delay)
				}
			}
			wantLong := 0
			if charge {
				wantLong = 1
			}
			if long != wantLong {
				t.Errorf("%d chunks held for a round trip more (%v), want %d", long, got, wantLong)
			}
		})
	}
}

func TestProxyCountsConnections(t *testing.T) {
	p := newTestProxy(t, ProxyConfig{Target: server(t, echo), Clock: &fakeClock{t0: time.Unix(1e9, 0)}})
	if n := p.Connections(); n != 0 {
		t.Fatalf("Connections() = %d before any, want 0", n)
	}
	for i := range 3 {
		c := dial(t, p.Addr())
		// A round trip, so the proxy has accepted it.
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
		if n := p.Connections(); n != int64(i+1) {
			t.Fatalf("Connections() = %d after %d connections, want %d", n, i+1, i+1)
		}
	}
}

// TestProxyClosePropagation checks that a half close goes through each
// way, and that the server's close reaches the client.
func TestProxyClosePropagation(t *testing.T) {
	// The server reads to the end, then answers how much it read and
	// closes.
	addr := server(t, func(c net.Conn) {
		b, _ := io.ReadAll(c)
		_, _ = c.Write([]byte("read " + string(rune('0'+len(b)))))
	})
	p := newTestProxy(t, ProxyConfig{Target: addr, Clock: &fakeClock{t0: time.Unix(1e9, 0)}})
	c := dial(t, p.Addr())
	if _, err := c.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the server's close did not reach the client: %v", err)
	}
	if string(got) != "read 3" {
		t.Fatalf("got %q, want %q (the client's half close must reach the server)", got, "read 3")
	}
}

// TestProxyCloseEndsConnections checks that Close closes open connections
// and returns.
func TestProxyCloseEndsConnections(t *testing.T) {
	p := newTestProxy(t, ProxyConfig{Target: server(t, echo), Clock: &fakeClock{t0: time.Unix(1e9, 0)}})
	c := dial(t, p.Addr())
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	n, err := c.Read(make([]byte, 1))
	if err == nil || n != 0 {
		t.Fatalf("read after Close: %d bytes, %v; want the connection closed", n, err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		t.Fatal("the proxy still accepts connections after Close")
	}
}

// TestProxyWallClock runs the default clock once: bytes go through.
func TestProxyWallClock(t *testing.T) {
	p := newTestProxy(t, ProxyConfig{Target: server(t, echo), Delay: time.Millisecond, ChargeConnect: true})
	c := dial(t, p.Addr())
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("got %q, %v; want ping", buf, err)
	}
}

func TestNewProxyErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  ProxyConfig
		want string
	}{
		{"no target", ProxyConfig{}, "ttd: ProxyConfig.Target is required"},
		{"no port", ProxyConfig{Target: "127.0.0.1"}, "ttd: ProxyConfig.Target \"127.0.0.1\" must be host:port"},
		{"not loopback", ProxyConfig{Target: "192.0.2.1:80"}, "must be a loopback address"},
		{"negative delay", ProxyConfig{Target: "127.0.0.1:1", Delay: -time.Second}, "ttd: ProxyConfig.Delay -1s must not be negative"},
		{"negative queue", ProxyConfig{Target: "127.0.0.1:1", Queue: -1}, "ttd: ProxyConfig.Queue -1 must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewProxy(tc.cfg)
			if err == nil {
				_ = p.Close()
				t.Fatalf("NewProxy(%+v) = nil error, want %q", tc.cfg, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewProxy: %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// A target that refuses: the client's connection is closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	p := newTestProxy(t, ProxyConfig{Target: addr, Clock: &fakeClock{t0: time.Unix(1e9, 0)}})
	c := dial(t, p.Addr())
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("a connection to a refusing target read %d bytes and stayed open", n)
	}
}

// A proxy in front of a loopback server: every chunk waits 20 ms each
// way, so each round trip through it costs 40 ms.
func ExampleNewProxy() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(c, c) // echo
	}()

	p, err := NewProxy(ProxyConfig{Target: ln.Addr().String(), Delay: 20 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_, _ = c.Write([]byte("ping"))
	buf := make([]byte, 4)
	_, _ = io.ReadFull(c, buf)
	fmt.Println(string(buf), p.Connections())
	// Output: ping 1
}
