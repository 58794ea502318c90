// Package testredis gives tests a real Redis on loopback: a single server
// (Addr) and a three-node Redis Cluster (ClusterAddrs).
//
// Addr returns the address in EMBEDKIT_REDIS_ADDR when it is set (the
// test command starts one redis-server for the whole run and exports it).
// ClusterAddrs returns the addresses in EMBEDKIT_REDIS_CLUSTER_ADDRS, in
// the same way. Otherwise each starts its own from PATH (redis-server, and
// redis-cli to form the cluster) on free loopback ports for the calling
// test binary, and Stop stops them when the binary's tests are done. When
// neither is possible the test fails with a message that says how to get
// one: tests never skip for a missing server.
//
// NewServer and NewCluster start servers that belong to one test, which
// may break them: pause a node (it hangs, as behind a network
// partition), kill it, restart it. They are stopped when the test ends.
package testredis

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvAddr is the environment variable naming a running test Redis.
const EnvAddr = "EMBEDKIT_REDIS_ADDR"

// EnvClusterAddrs is the environment variable naming the nodes of a
// running test Redis Cluster, separated by commas.
const EnvClusterAddrs = "EMBEDKIT_REDIS_CLUSTER_ADDRS"

// ClusterNodes is the number of primaries of a cluster ClusterAddrs
// starts: enough that the 16,384 hash slots are spread over several
// nodes, so that a command whose keys lie in different slots fails.
const ClusterNodes = 3

// startTimeout bounds the wait for a server to listen, and for a cluster
// to serve every slot.
const startTimeout = 60 * time.Second

var (
	mu      sync.Mutex
	single  string
	cluster []string
	procs   []*exec.Cmd
	dirs    []string
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
	if single != "" {
		return single
	}
	addr, err := startServer()
	if err != nil {
		tb.Fatalf("testredis: %v (run 'make test', which installs and starts redis-server, or set %s)", err, EnvAddr)
	}
	single = addr
	return addr
}

// ClusterAddrs returns the addresses of the primaries of a Redis Cluster
// for tests, starting one if needed: ClusterNodes servers in cluster mode,
// joined with redis-cli --cluster create, with every slot served. It is
// safe for concurrent use; the cluster is shared by every test of the
// binary.
func ClusterAddrs(tb testing.TB) []string {
	tb.Helper()
	if env := os.Getenv(EnvClusterAddrs); env != "" {
		return strings.Split(env, ",")
	}
	mu.Lock()
	defer mu.Unlock()
	if cluster != nil {
		return cluster
	}
	addrs, err := startCluster()
	if err != nil {
		tb.Fatalf("testredis: %v (run 'make test', which installs redis-server and redis-tools and starts a cluster, or set %s)", err, EnvClusterAddrs)
	}
	cluster = addrs
	return addrs
}

// Stop stops the servers Addr and ClusterAddrs started, if any, and
// removes their folders. Call it from TestMain after m.Run: a server that
// is not stopped outlives the test binary.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	for _, c := range procs {
		if c.Process != nil {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for _, d := range dirs {
		_ = os.RemoveAll(d)
	}
	procs, dirs, single, cluster = nil, nil, "", nil
}

// startServer starts one redis-server on a free loopback port, with extra
// arguments, and waits until it accepts connections. Stop stops it.
func startServer(extra ...string) (string, error) {
	s, err := launch(extra...)
	if s != nil {
		procs = append(procs, s.cmd)
		dirs = append(dirs, s.dir)
	}
	if err != nil {
		return "", err
	}
	return s.Addr, nil
}

// launch starts one redis-server on a free loopback port, in a folder of
// its own, with extra arguments, and waits until it accepts connections.
// On an error after the start, it returns the server too, for the caller
// to stop.
func launch(extra ...string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, errors.New("redis-server not found in PATH")
	}
	port, err := freePort(len(extra) > 0)
	if err != nil {
		return nil, err
	}
	d, err := os.MkdirTemp("", "testredis-")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: d,
		args: append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--save", "", "--appendonly", "no", "--dir", d}, extra...)}
	if err := s.start(); err != nil {
		return s, err
	}
	return s, nil
}

// start starts s's process with its arguments and waits until it accepts
// connections.
func (s *Server) start() error {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return errors.New("redis-server not found in PATH")
	}
	c := exec.Command(bin, s.args...)
	logf, err := os.OpenFile(filepath.Join(s.dir, "redis.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	c.Stdout, c.Stderr = logf, logf
	if err := c.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	s.cmd = c
	// A loaded machine can take a while to start it.
	deadline := time.Now().Add(startTimeout)
	for {
		conn, err := net.DialTimeout("tcp", s.Addr, 200*time.Millisecond)
		if err == nil {
			_ = conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server did not listen on %s within %s (log in %s)", s.Addr, startTimeout, s.dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freePort finds a free loopback port. A cluster node also listens on
// its port + 10000 for the cluster bus, so withBus finds a port whose
// bus port is free too, both below the kernel's ephemeral range (32768
// and up on Linux), where an outgoing connection may take a port between
// this test and redis-server's own bind.
func freePort(withBus bool) (int, error) {
	if !withBus {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port, nil
	}
	for range 100 {
		p := 20000 + rand.IntN(2768)
		a, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		b, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+10000)))
		_ = a.Close()
		if err != nil {
			continue
		}
		_ = b.Close()
		return p, nil
	}
	return 0, errors.New("find a free port pair for a cluster node: none in 100 tries")
}

// clusterArgs are the arguments of a cluster node.
var clusterArgs = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"}

// privateClusterArgs are those of a node of NewCluster: a node timeout
// long enough that the other nodes do not mark a node Pause stopped, or
// Kill killed, as failed (which would stop the whole cluster) before a
// test resumes or restarts it.
var privateClusterArgs = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "30000"}

// startCluster starts ClusterNodes servers in cluster mode and joins them.
func startCluster() ([]string, error) {
	addrs := make([]string, ClusterNodes)
	for i := range addrs {
		var err error
		if addrs[i], err = startServer(clusterArgs...); err != nil {
			return nil, err
		}
	}
	return addrs, joinCluster(addrs)
}

// joinCluster joins the nodes at addrs into one cluster and waits until
// each serves every slot.
func joinCluster(addrs []string) error {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return errors.New("redis-cli not found in PATH (Debian: redis-tools)")
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("redis-cli --cluster create: %w: %s", err, bytes.TrimSpace(out))
	}
	return waitCluster(cli, addrs)
}

// waitCluster waits until each node at addrs says every slot is served:
// the nodes learn of each other over the cluster bus.
func waitCluster(cli string, addrs []string) error {
	deadline := time.Now().Add(startTimeout)
	for _, addr := range addrs {
		host, port, _ := net.SplitHostPort(addr)
		for {
			out, err := exec.Command(cli, "-h", host, "-p", port, "cluster", "info").Output()
			if err == nil && bytes.Contains(out, []byte("cluster_state:ok")) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("redis cluster node %s not ready within %s: %s", addr, startTimeout, bytes.TrimSpace(out))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// Server is a redis-server of one test, for tests that break it: Pause
// makes it hang (SIGSTOP, which a client cannot tell from a network
// partition), Kill stops it, Restart starts it again on the same port.
// Unlike Addr's shared server it belongs to the test that made it, which
// stops it (resuming it first) and removes its folder when it ends,
// failed or not.
type Server struct {
	// Addr is the server's loopback address, host:port.
	Addr string

	dir  string
	args []string
	cmd  *exec.Cmd // nil once killed
}

// NewServer starts a private redis-server for tb, stopped when tb ends.
func NewServer(tb testing.TB) *Server {
	tb.Helper()
	s, err := launch()
	if s != nil {
		tb.Cleanup(s.stop)
	}
	if err != nil {
		tb.Fatalf("testredis: %v", err)
	}
	return s
}

// NewCluster starts a private Redis Cluster of ClusterNodes primaries
// for tb, stopped when tb ends, and returns its nodes.
func NewCluster(tb testing.TB) []*Server {
	tb.Helper()
	nodes := make([]*Server, ClusterNodes)
	addrs := make([]string, ClusterNodes)
	for i := range nodes {
		s, err := launch(privateClusterArgs...)
		if s != nil {
			tb.Cleanup(s.stop)
		}
		if err != nil {
			tb.Fatalf("testredis: %v", err)
		}
		nodes[i], addrs[i] = s, s.Addr
	}
	if err := joinCluster(addrs); err != nil {
		tb.Fatalf("testredis: %v", err)
	}
	return nodes
}

// Pause makes the server hang: it stops the process (SIGSTOP), so that
// connections stay open and commands get no answer. Resume ends it; so
// does the end of the test.
func (s *Server) Pause(tb testing.TB) {
	tb.Helper()
	s.signal(tb, syscall.SIGSTOP)
}

// Resume lets a paused server go on; the commands sent to it meanwhile
// run now.
func (s *Server) Resume(tb testing.TB) {
	tb.Helper()
	s.signal(tb, syscall.SIGCONT)
}

// Kill stops the server's process (SIGKILL) and waits for it to end: its
// port refuses connections, and its data is gone.
func (s *Server) Kill(tb testing.TB) {
	tb.Helper()
	if s.cmd == nil {
		tb.Fatalf("testredis: Kill of %s, which is not running", s.Addr)
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts a killed server again on its port, empty; a cluster
// node keeps its place in the cluster (its nodes.conf). WaitCluster waits
// until the cluster serves again.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	if s.cmd != nil {
		tb.Fatalf("testredis: Restart of %s, which is running", s.Addr)
	}
	if err := s.start(); err != nil {
		tb.Fatalf("testredis: %v", err)
	}
}

// WaitCluster waits until each of nodes says every slot is served.
func WaitCluster(tb testing.TB, nodes []*Server) {
	tb.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		tb.Fatalf("testredis: redis-cli not found in PATH (Debian: redis-tools)")
	}
	addrs := make([]string, len(nodes))
	for i, n := range nodes {
		addrs[i] = n.Addr
	}
	if err := waitCluster(cli, addrs); err != nil {
		tb.Fatalf("testredis: %v", err)
	}
}

// signal sends sig to the server's process.
func (s *Server) signal(tb testing.TB, sig syscall.Signal) {
	tb.Helper()
	if s.cmd == nil {
		tb.Fatalf("testredis: signal to %s, which is not running", s.Addr)
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		tb.Fatalf("testredis: signal %v to %s: %v", sig, s.Addr, err)
	}
}

// stop resumes, kills and removes the server, whatever state it is in.
func (s *Server) stop() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
	_ = os.RemoveAll(s.dir)
}
