package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cleanEnv is the test's environment without the variables that would
// replace the demo's embedded parts.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "EMBEDKIT_") || strings.HasPrefix(name, "OIDC_") || name == "SESSION_KEYS" || name == "REDIS_ADDR" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestDemoBinaryStartsAndStopsOnSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sends SIGINT, which Windows does not have; not run with -short either")
	}
	if testing.Short() {
		t.Skip("builds the binary; not run with -short")
	}
	bin := filepath.Join(t.TempDir(), "demo")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-metrics-listen", "127.0.0.1:0")
	cmd.Env = cleanEnv()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})

	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()

	var first string
	select {
	case first = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatalf("no output within 30s; stderr:\n%s", stderr.String())
	}
	appURL, ok := strings.CutPrefix(first, "demo: open ")
	if !ok || !strings.HasPrefix(appURL, "http://127.0.0.1:") {
		t.Fatalf("first line %q, want \"demo: open http://127.0.0.1:PORT\"; stderr:\n%s", first, stderr.String())
	}
	var banner []string
	for l := range lines {
		banner = append(banner, l)
		if strings.Contains(l, "Ctrl-C") {
			break
		}
	}
	text := strings.Join(banner, "\n")
	for _, want := range []string{"ana", "ana-dev-pass", "ben", "chloe", "development only"} {
		if !strings.Contains(text, want) {
			t.Errorf("the banner does not mention %q:\n%s", want, text)
		}
	}

	resp, err := http.Get(appURL + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "ok" {
		t.Fatalf("GET /healthz: %d %q", resp.StatusCode, body)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines { // drain the rest of stdout
		}
	}()
	select {
	case err := <-exited:
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("exit status %d after SIGINT; stderr:\n%s", ee.ExitCode(), stderr.String())
			}
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15s after SIGINT; stderr:\n%s", stderr.String())
	}
	if _, err := http.Get(appURL + "/healthz"); err == nil {
		t.Error("the app still answers after exit")
	}
	if strings.Contains(stderr.String(), "ek_demo_") {
		t.Error("the generated API key was logged")
	}
}

func TestDemoFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown flag", []string{"-nope"}, "flag provided but not defined"},
		{"extra argument", []string{"extra"}, "unexpected arguments"},
		{"emulator off loopback", []string{"-listen", "127.0.0.1:0", "-emulator-listen", "0.0.0.0:0"}, "not a loopback address"},
		{"metrics off loopback", []string{"-listen", "127.0.0.1:0", "-metrics-listen", "0.0.0.0:0"}, "metrics listen address \"0.0.0.0:0\" is not a loopback address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runDemo(context.Background(), tc.args, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.wantErr) {
				t.Fatalf("error %v (stderr %q), want %q", err, stderr.String(), tc.wantErr)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}

func TestDemoHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := runDemo(context.Background(), []string{"-h"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-listen", "-idp-listen", "-emulator-listen", "-metrics-listen", "EMBEDKIT_BASE_URL", "EMBEDKIT_API_KEY",
		"EMBEDKIT_DEPLOYMENT_ID", "EMBEDKIT_DASHBOARDS", "OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "SESSION_KEYS", "REDIS_ADDR"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-h does not document %s", want)
		}
	}
}
