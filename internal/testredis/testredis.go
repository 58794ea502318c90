// Package testredis gives tests a real Redis server on loopback.
//
// Addr returns the address in EMBEDKIT_REDIS_ADDR when it is set (the
// test command starts one redis-server for the whole run and exports it).
// Otherwise it starts a private redis-server from PATH on a free loopback
// port for the calling test binary, and stops it when the process's tests
// are done with it (see Stop). When neither is possible the test fails
// with a message that says how to get one: tests never skip for a missing
// server.
package testredis

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// EnvAddr is the environment variable naming a running test Redis.
const EnvAddr = "EMBEDKIT_REDIS_ADDR"

var (
	mu      sync.Mutex
	started string
	cmd     *exec.Cmd
	dir     string
)

// Addr returns the address of a Redis server for tests, starting one if
// needed. It is safe for concurrent use; the server is shared by every
// test of the binary.
func Addr(tb testing.TB) string {
	tb.Helper()
	if addr := os.Getenv(EnvAddr); addr != "" {
		return addr
	}
	mu.Lock()
	defer mu.Unlock()
	if started != "" {
		return started
	}
	addr, err := start()
	if err != nil {
		tb.Fatalf("testredis: %v (run 'make test', which installs and starts redis-server, or set %s)", err, EnvAddr)
	}
	started = addr
	return addr
}

// Stop stops the server Addr started, if any, and removes its folder. Call
// it from TestMain after m.Run: a server that is not stopped outlives the
// test binary.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	cmd, started, dir = nil, "", ""
}

func start() (string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("redis-server not found in PATH")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	d, err := os.MkdirTemp("", "testredis-")
	if err != nil {
		return "", err
	}
	c := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(port),
		"--save", "", "--appendonly", "no", "--dir", d)
	logf, err := os.Create(filepath.Join(d, "redis.log"))
	if err != nil {
		return "", err
	}
	c.Stdout, c.Stderr = logf, logf
	if err := c.Start(); err != nil {
		return "", fmt.Errorf("start redis-server: %w", err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = c.Process.Kill()
			_ = c.Wait()
			return "", fmt.Errorf("redis-server did not listen on %s within 10s (log in %s)", addr, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd, dir = c, d
	return addr, nil
}
