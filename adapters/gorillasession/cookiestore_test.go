package gorillasession_test

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/embedkit/embedkit/adapters/gorillasession"
)

func TestKeysFromEnv(t *testing.T) {
	k := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	std := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	raw := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	// 0xfb bytes encode with + and / in standard base64, - and _ in URL.
	odd := k(32, 0xfb)
	tests := []struct {
		name    string
		value   string
		want    [][]byte
		wantErr string
	}{
		{"one hash key", std(k(32, 'a')), [][]byte{k(32, 'a'), nil}, ""},
		{"hash and block", std(k(64, 'a')) + ":" + std(k(32, 'b')), [][]byte{k(64, 'a'), k(32, 'b')}, ""},
		{"rotation, newest first", std(k(32, 'n')) + ":" + std(k(16, 'N')) + " , " + std(k(32, 'o')) + ":" + std(k(16, 'O')),
			[][]byte{k(32, 'n'), k(16, 'N'), k(32, 'o'), k(16, 'O')}, ""},
		{"url alphabet without padding", raw(odd), [][]byte{odd, nil}, ""},
		{"standard alphabet", std(odd), [][]byte{odd, nil}, ""},
		{"empty", "  ", nil, "gorillasession: no session keys given"},
		{"empty entry", std(k(32, 'a')) + ",", nil, "gorillasession: session key 2: empty entry"},
		{"short hash key", std(k(32, 'a')) + "," + std(k(16, 'a')), nil, "gorillasession: session key 2: hash key is 16 bytes, want 32 or 64"},
		{"bad block key size", std(k(32, 'a')) + ":" + std(k(20, 'b')), nil, "gorillasession: session key 1: block key is 20 bytes, want 16, 24 or 32"},
		{"not base64", "not*base64!", nil, "gorillasession: session key 1: hash key: not valid base64"},
		{"empty block key", std(k(32, 'a')) + ":", nil, "gorillasession: session key 1: block key: empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gorillasession.KeysFromEnv(tt.value)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("KeysFromEnv: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d keys, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if !bytes.Equal(got[i], tt.want[i]) {
					t.Errorf("key %d differs", i)
				}
			}
		})
	}
	t.Run("errors hold no key material", func(t *testing.T) {
		secret := std(k(20, 's'))
		_, err := gorillasession.KeysFromEnv(secret)
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Fatalf("error = %v", err)
		}
	})
}
