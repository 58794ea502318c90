package scssession

import (
	"reflect"
	"testing"

	"github.com/embedkit/embedkit/middleware"
)

// FuzzDecodeViewer: decodeViewer never panics, accepts only a login with a
// subject and a key, and what it accepts encodes back to a value that
// decodes to the same viewer.
func FuzzDecodeViewer(f *testing.F) {
	full, err := encodeViewer(&middleware.Viewer{
		Subject: "ana", ProviderSID: "sid-1", Email: "ana@example.com", Groups: []string{"sales"},
		Attributes: map[string]any{"s": "x", "n": 1.5, "b": true, "sa": []string{"a"}, "na": []float64{2}},
	}, "key-1")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add(`{"s":"ana","k":"key"}`)
	f.Add(`{"s":"ana","k":"key","a":{"x":{}}}`)
	f.Add(`{"s":"","k":"key"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		_, v, ok := decodeViewer(raw)
		if !ok {
			return
		}
		if v.Subject == "" || v.SessionKey == "" {
			t.Fatalf("decodeViewer(%q) accepted a login without a subject or key: %+v", raw, v)
		}
		again, err := encodeViewer(v, v.SessionKey)
		if err != nil {
			t.Fatalf("the decoded viewer does not encode: %v", err)
		}
		_, w, ok := decodeViewer(again)
		if !ok || !reflect.DeepEqual(v, w) {
			t.Fatalf("round trip of %q: %+v, then %+v (%v)", raw, v, w, ok)
		}
	})
}
