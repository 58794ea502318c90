package emulator

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0": true, "localhost:7070": true, "[::1]:80": true, "127.1.2.3:9": true,
		":7070": false, "0.0.0.0:7070": false, "10.0.0.1:80": false, "example.test:80": false, "nonsense": false,
	} {
		if err := checkLoopback(addr); (err == nil) != ok {
			t.Errorf("checkLoopback(%q) = %v", addr, err)
		}
	}
	err := ListenAndServe(context.Background(), Config{Addr: "0.0.0.0:0"})
	if err == nil || !strings.Contains(err.Error(), "non-loopback") {
		t.Errorf("ListenAndServe on all interfaces: %v", err)
	}
}

func TestListenAndServeTLSAndShutdown(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		ready := make(chan string, 1)
		done := make(chan error, 1)
		go func() {
			done <- ListenAndServe(ctx, Config{Addr: "127.0.0.1:0", TLS: useTLS, Ready: func(u string) { ready <- u }})
		}()
		var base string
		select {
		case base = <-ready:
		case err := <-done:
			t.Fatalf("ListenAndServe: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("not ready")
		}
		wantScheme := map[bool]string{false: "http://127.0.0.1:", true: "https://127.0.0.1:"}[useTLS]
		if !strings.HasPrefix(base, wantScheme) {
			t.Errorf("base URL %s", base)
		}
		// A client that offers HTTP/2, as browsers do: over TLS the
		// emulator speaks it, as the platform, a modern HTTPS service,
		// does; over plain http it speaks HTTP/1.1.
		client := &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		req, _ := http.NewRequest("GET", base+"/api/v1/deployments", nil)
		req.Header.Set("Authorization", "Bearer ek_dev_only_admin_all")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("status %d", resp.StatusCode)
		}
		if wantMajor := map[bool]int{false: 1, true: 2}[useTLS]; resp.ProtoMajor != wantMajor {
			t.Errorf("TLS %v: answered over %s, want HTTP/%d", useTLS, resp.Proto, wantMajor)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("shutdown: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no shutdown")
		}
	}
}
