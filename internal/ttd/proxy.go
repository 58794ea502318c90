// Package ttd measures the time from opening a host page to a live
// dashboard, in Chromium, with the host app and the platform each behind
// a latency proxy (BenchmarkTimeToDashboard, in this package's tests).
//
// The package itself is that proxy: a loopback TCP forwarder that holds
// every chunk it reads for a one-way delay before writing it on, in each
// direction, so that a page load pays real round trips while everything
// stays on the machine.
package ttd

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/embedkit/embedkit/internal/loopbackhost"
)

// DefaultDelay is the one-way delay of a Proxy when ProxyConfig.Delay is
// zero: 20 ms each way, a 40 ms round trip.
const DefaultDelay = 20 * time.Millisecond

// Clock is the time source of a Proxy: Now stamps a chunk when it is read,
// SleepUntil waits until the chunk is due. It returns early with false
// when stop is closed.
type Clock interface {
	Now() time.Time
	SleepUntil(t time.Time, stop <-chan struct{}) bool
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) SleepUntil(t time.Time, stop <-chan struct{}) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stop:
		return false
	}
}

// ProxyConfig configures NewProxy.
type ProxyConfig struct {
	// Target is the loopback address (host:port) every connection is
	// forwarded to. Required.
	Target string
	// Delay is the one-way delay added to every chunk, each way. Zero
	// means DefaultDelay; negative is an error.
	Delay time.Duration
	// ChargeConnect holds the first bytes a client sends on a connection
	// for one more round trip (2 × Delay), standing for the TCP handshake,
	// which the kernel completes on loopback before the proxy sees the
	// connection. A client that writes as soon as it is connected, as TLS
	// does, then waits as long as it would over a network.
	ChargeConnect bool
	// Clock is the time source (nil: the wall clock). Tests inject one.
	Clock Clock
	// Queue is how many chunks may wait in each direction of a connection
	// before reading stops (0: 256). It bounds the proxy's memory.
	Queue int
}

// Proxy is a running latency proxy. Create one with NewProxy, stop it with
// Close.
type Proxy struct {
	cfg   ProxyConfig
	ln    net.Listener
	stop  chan struct{}
	wg    sync.WaitGroup
	conns atomic.Int64

	mu   sync.Mutex
	open map[net.Conn]struct{}
	done bool
}

// NewProxy listens on a free port of 127.0.0.1 and forwards every
// connection to cfg.Target with cfg.Delay added each way.
func NewProxy(cfg ProxyConfig) (*Proxy, error) {
	if cfg.Target == "" {
		return nil, errors.New("ttd: ProxyConfig.Target is required (a loopback host:port)")
	}
	host, _, err := net.SplitHostPort(cfg.Target)
	if err != nil {
		return nil, fmt.Errorf("ttd: ProxyConfig.Target %q must be host:port: %w", cfg.Target, err)
	}
	if !loopbackhost.IsLoopback(host) {
		return nil, fmt.Errorf("ttd: ProxyConfig.Target %q must be a loopback address", cfg.Target)
	}
	if cfg.Delay < 0 {
		return nil, fmt.Errorf("ttd: ProxyConfig.Delay %s must not be negative", cfg.Delay)
	}
	if cfg.Queue < 0 {
		return nil, fmt.Errorf("ttd: ProxyConfig.Queue %d must not be negative", cfg.Queue)
	}
	if cfg.Delay == 0 {
		cfg.Delay = DefaultDelay
	}
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.Queue == 0 {
		cfg.Queue = 256
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("ttd: listen: %w", err)
	}
	p := &Proxy{cfg: cfg, ln: ln, stop: make(chan struct{}), open: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address, 127.0.0.1:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Connections is the number of client connections accepted so far.
func (p *Proxy) Connections() int64 { return p.conns.Load() }

// Close stops accepting, closes every open connection and waits for the
// proxy's goroutines to end. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return nil
	}
	p.done = true
	close(p.stop)
	err := p.ln.Close()
	for c := range p.open {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// track records c as open, or closes it and reports false once the proxy
// is closing.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		_ = c.Close()
		return false
	}
	p.open[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.open, c)
	p.mu.Unlock()
	_ = c.Close()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.conns.Add(1)
		if !p.track(c) {
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

// serve forwards one client connection to the target.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	defer p.untrack(client)
	d := net.Dialer{Timeout: 5 * time.Second}
	server, err := d.Dial("tcp", p.cfg.Target)
	if err != nil {
		return
	}
	if !p.track(server) {
		return
	}
	defer p.untrack(server)
	var wg sync.WaitGroup
	wg.Add(2)
	extra := time.Duration(0)
	if p.cfg.ChargeConnect {
		extra = 2 * p.cfg.Delay
	}
	go func() { defer wg.Done(); p.pipe(server, client, extra) }()
	go func() { defer wg.Done(); p.pipe(client, server, 0) }()
	wg.Wait()
}

// chunk is what one Read returned, due at due; eof marks the end of the
// stream (err is nil for a clean end).
type chunk struct {
	data []byte
	due  time.Time
	eof  bool
	err  error
}

// pipe copies src to dst, each chunk delayed by the proxy's delay (the
// first by first more), in order. A clean end of src is passed on as a
// half close of dst once it is due; an error closes both.
func (p *Proxy) pipe(dst, src net.Conn, first time.Duration) {
	q := make(chan chunk, p.cfg.Queue)
	go func() {
		defer close(q)
		extra := first
		for {
			buf := make([]byte, 32*1024)
			n, err := src.Read(buf)
			now := p.cfg.Clock.Now()
			if n > 0 {
				select {
				case q <- chunk{data: buf[:n], due: now.Add(p.cfg.Delay + extra)}:
				case <-p.stop:
					return
				}
				extra = 0
			}
			if err != nil {
				c := chunk{eof: true, due: now.Add(p.cfg.Delay)}
				if !errors.Is(err, io.EOF) {
					c.err = err
				}
				select {
				case q <- c:
				case <-p.stop:
				}
				return
			}
		}
	}()
	for c := range q {
		if !p.cfg.Clock.SleepUntil(c.due, p.stop) {
			break
		}
		if c.eof {
			if c.err != nil {
				_ = dst.Close()
				_ = src.Close()
				break
			}
			if cw, ok := dst.(interface{ CloseWrite() error }); ok {
				_ = cw.CloseWrite()
			} else {
				_ = dst.Close()
			}
			break
		}
		if _, err := dst.Write(c.data); err != nil {
			_ = dst.Close()
			_ = src.Close()
			break
		}
	}
	// Drain, so that the reader is never left blocked on the queue.
	for range q {
	}
}
