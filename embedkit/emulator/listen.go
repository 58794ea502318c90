package emulator

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"time"

	"github.com/embedkit/embedkit/internal/loopbackhost"
)

// DefaultAddr is the address the standalone emulator binds by default.
const DefaultAddr = "127.0.0.1:7070"

// Config configures ListenAndServe.
type Config struct {
	// Addr is the TCP address to bind; empty means DefaultAddr. Port 0
	// picks a free port.
	Addr string
	// AllowRemote permits a non-loopback address. The control API needs no
	// credential, so an emulator reachable from other hosts can be reset or
	// read by anyone who reaches it.
	AllowRemote bool
	// ControlHosts are further host names the control API accepts in the
	// Host header, for an emulator reached by a name such as a
	// container's service name (see WithControlHosts). The host of a
	// non-loopback Addr, unless it is a wildcard, is added to them. Both
	// are added to Server when it is given.
	ControlHosts []string
	// TLS serves HTTPS with a self-signed certificate generated in memory
	// for localhost, 127.0.0.1 and ::1, over HTTP/2 for a client that
	// offers it (browsers do) and HTTP/1.1 otherwise, as the platform, a
	// modern HTTPS service, does. A Reset fault drops the connection of an
	// HTTP/1.1 request; an HTTP/2 connection carries other requests, so
	// there it resets the request's stream.
	TLS bool
	// Server is the emulator to serve; nil means New(Fixture).
	Server *Server
	// Fixture is the state of a Server created here (nil: the demo fixture).
	Fixture *Fixture
	// Logger receives lifecycle records (nil: discarded).
	Logger *slog.Logger
	// Ready, when set, is called once the listener is bound, with the base
	// URL such as "http://127.0.0.1:7070".
	Ready func(baseURL string)
	// ShutdownTimeout bounds the graceful shutdown (0 means 10 seconds).
	ShutdownTimeout time.Duration
}

// ListenAndServe binds cfg.Addr and serves the emulator until ctx is done,
// then shuts down gracefully: the listener closes at once and in-flight
// requests finish (up to ShutdownTimeout). It refuses a non-loopback
// address unless cfg.AllowRemote is set.
func ListenAndServe(ctx context.Context, cfg Config) error {
	addr := cfg.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	if !cfg.AllowRemote {
		if err := checkLoopback(addr); err != nil {
			return err
		}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	srv := cfg.Server
	if srv == nil {
		var err error
		if srv, err = New(cfg.Fixture, WithLogger(logger)); err != nil {
			return err
		}
	}
	srv.controlHosts.add(cfg.ControlHosts...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		if ip := net.ParseIP(host); ip == nil || !ip.IsUnspecified() {
			srv.controlHosts.add(host)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("emulator: %w", err)
	}
	scheme := "http"
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
	}
	if cfg.TLS {
		cert, err := selfSignedCert()
		if err != nil {
			ln.Close()
			return err
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	base := scheme + "://" + ln.Addr().String()
	logger.Info("emulator listening", "url", base)
	if cfg.Ready != nil {
		cfg.Ready(base)
	}
	errc := make(chan error, 1)
	go func() {
		if cfg.TLS {
			// ServeTLS, not Serve on a tls.Listener: it offers h2 by ALPN.
			errc <- hs.ServeTLS(ln, "", "")
			return
		}
		errc <- hs.Serve(ln)
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("emulator: %w", err)
	case <-ctx.Done():
	}
	timeout := cfg.ShutdownTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	logger.Info("emulator shutting down")
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("emulator: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("emulator: %w", err)
	}
	return nil
}

// checkLoopback accepts loopback names and addresses only
// (loopbackhost.IsLoopback); an empty host (all interfaces) is refused.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("emulator: address %q: %w", addr, err)
	}
	if loopbackhost.IsLoopback(host) {
		return nil
	}
	return fmt.Errorf("emulator: refusing to listen on non-loopback address %q: the control API has no authentication (allow it explicitly to override)", addr)
}

// selfSignedCert makes an ECDSA P-256 certificate for loopback names,
// valid for a week from now.
func selfSignedCert() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("emulator: generating TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("emulator: generating TLS serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "embedkit emulator (self-signed)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("emulator: creating TLS certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
