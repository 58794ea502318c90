package main

import (
	"bufio"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// build builds the command in dir (relative to this one) into a
// temporary directory.
func build(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cmd")
	out, err := exec.Command("go", "build", "-o", bin, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, out)
	}
	return bin
}

// commands are the two ways to run the emulator: this command, and its
// alias "demo emulator", with the arguments that come before the flags.
func commands(t *testing.T) []struct {
	name   string
	bin    string
	prefix []string
} {
	return []struct {
		name   string
		bin    string
		prefix []string
	}{
		{"emulator", build(t, "."), nil},
		{"demo emulator", build(t, "../demo"), []string{"emulator"}},
	}
}

func TestEmulatorCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command; not run with -short")
	}
	cmds := commands(t)
	fixture := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(fixture, []byte(`{"tenant":"initech","embedding":true,"users":[{"username":"root","admin":true}],
		"apiKeys":[{"key":"ek_cmd_test","user":"root"}],"deployments":[{"id":7,"name":"Seven","createdAt":"2026-01-01T00:00:00Z"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		for _, tc := range []struct {
			name string
			args []string
			key  string
			want string
		}{
			{"fixture over http", []string{"-fixture", fixture}, "ek_cmd_test", `"id":"7"`},
			{"demo fixture over https", []string{"-tls"}, "ek_dev_only_admin_all", `"Sales analytics"`},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				cmd := exec.Command(c.bin, append(append(slices.Clone(c.prefix), "-listen", "127.0.0.1:0"), tc.args...)...)
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				var stderr strings.Builder
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cmd.Process.Kill() })
				lines := make(chan string, 1)
				go func() {
					line, _ := bufio.NewReader(stdout).ReadString('\n')
					lines <- line
					_, _ = io.Copy(io.Discard, stdout)
				}()
				var line string
				select {
				case line = <-lines:
				case <-time.After(30 * time.Second):
					t.Fatalf("no first line; stderr: %s", stderr.String())
				}
				scheme := "http"
				if strings.Contains(strings.Join(tc.args, " "), "-tls") {
					scheme = "https"
				}
				base, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "listening on ")
				if !ok || !strings.HasPrefix(base, scheme+"://127.0.0.1:") || strings.HasSuffix(base, ":0") {
					t.Fatalf("first line %q", line)
				}
				client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
				req, _ := http.NewRequest("GET", base+"/api/v1/deployments", nil)
				req.Header.Set("Authorization", "Bearer "+tc.key)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(body), tc.want) {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("exit after SIGTERM: %v; stderr: %s", err, stderr.String())
					}
				case <-time.After(15 * time.Second):
					t.Fatal("did not exit after SIGTERM")
				}
			})
		}
	}
}

func TestEmulatorCommandRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command; not run with -short")
	}
	cmds := commands(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"tenant":"acme","deployments":[{"id":1,"name":"d","createdAt":"2026-01-01T00:00:00Z","branches":[{"id":1,"name":"m","kind":"trunk"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-listen", "0.0.0.0:0"}, "non-loopback"},
		{[]string{"-listen", "127.0.0.1:0", "-fixture", bad}, "deployments[0].branches[0].kind: must be production, shared or personal"},
		{[]string{"-fixture", filepath.Join(t.TempDir(), "missing.json")}, "no such file"},
		{[]string{"-bogus"}, "flag provided but not defined"},
		{[]string{"-listen", "127.0.0.1:0", "stray"}, "unexpected arguments"},
	} {
		for _, c := range cmds {
			out, err := exec.Command(c.bin, append(slices.Clone(c.prefix), tc.args...)...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("%s %v: err %v, output %s", c.name, tc.args, err, out)
			}
		}
	}
	// -h prints the usage under the name typed, and exits 0.
	for _, c := range cmds {
		out, err := exec.Command(c.bin, append(slices.Clone(c.prefix), "-h")...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "usage: "+c.name+" [-listen") {
			t.Errorf("%s -h: err %v, output %s", c.name, err, out)
		}
	}
}
