package gorillasession

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/embedkit/embedkit/middleware"
)

// viewerSamples are viewers of every shape the session holds.
var viewerSamples = []*middleware.Viewer{
	{Subject: "ana"},
	{
		Subject: "ana@example.com", Email: "ana@example.com", DisplayName: "Ana Lima",
		Picture: "https://example.com/ana.png", Groups: []string{"sales", "emea"},
		Attributes: map[string]any{
			"region": "EMEA", "quota": 1.5e6, "tiny": -2.5e-9, "zero": 0.0, "huge": 1e21,
			"manager": true, "off": false, "teams": []string{"a", "b"}, "none": []string{},
			"scores": []float64{1, -0.25, 3e30}, "empty": []float64{},
		},
		Tenant: "acme", CreatorMode: true, Locale: "de-DE", TimeZone: "Europe/Berlin",
	},
	{Subject: "ben", Groups: []string{}, ProviderSID: "08a5019c-17e1-4977-8f42-65a12843ea02"},
	{Subject: `quote"back\slash`, DisplayName: "<b>&amp;</b>", Email: "tab\there", Groups: []string{"line\u2028sep"}},
	{Subject: "ünïcödé", DisplayName: "日本語", Attributes: map[string]any{"ß": "ü"}},
}

// asScanned returns rec, as encoding/json reads it, in the form the hand
// decoder gives: the attributes as the Viewer holds them. ok is false when
// an attribute has no value.
func asScanned(rec storedViewer) (storedViewer, bool) {
	attrs, ok := rec.attributes()
	rec.attrs, rec.Attributes = attrs, nil
	return rec, ok
}

// TestDecodeViewerMatchesEncodingJSON: what Save writes, the hand decoder
// reads as encoding/json does, and it takes the common shape itself.
func TestDecodeViewerMatchesEncodingJSON(t *testing.T) {
	issued := time.UnixMilli(1760000000123)
	for i, v := range viewerSamples {
		rec, err := toStored(v, "KEY", issued)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		var want storedViewer
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if _, scanned := scanViewer(string(raw)); scanned {
			// The hand decoder reads this one, and gives the attributes
			// in the Viewer's form.
			var ok bool
			if want, ok = asScanned(want); !ok {
				t.Fatalf("sample %d: encoding/json reads no viewer's attributes", i)
			}
		}
		got, ok := decodeViewer(string(raw))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("sample %d: decodeViewer(%s) = %+v, %v; want %+v", i, raw, got, ok, want)
		}
		back, ok := got.viewer()
		if !ok || back.Subject != v.Subject || !reflect.DeepEqual(back.Attributes, v.Attributes) && len(v.Attributes) > 0 {
			t.Errorf("sample %d: viewer() = %+v, %v", i, back, ok)
		}
		// Samples without escapes are the common shape: the hand decoder
		// takes them without encoding/json.
		if i < 3 {
			if _, ok := scanViewer(string(raw)); !ok {
				t.Errorf("sample %d: scanViewer refused %s", i, raw)
			}
		}
	}
}

// TestScanViewerRefuses: anything but the shape Save writes is left to
// encoding/json, which decides.
func TestScanViewerRefuses(t *testing.T) {
	for _, s := range []string{
		"", "{", "[]", `{"s":"a"} `, `{ "s":"a"}`,
		`{"s":"a","s":"b"}`,            // a field twice: encoding/json keeps the last
		`{"S":"a"}`,                    // encoding/json matches names without case
		`{"s":"a","x":1}`,              // a field of another version
		`{"s":"a","g":null}`,           // null
		`{"s":"a\u0062"}`,              // an escape
		`{"s":"a","i":-5}`,             // a negative time
		`{"s":"a","i":1.5}`,            // not an integer
		`{"s":"a","a":{"x":{"n":01}}}`, // not a JSON number
		`{"s":"a","a":{"x":{"s":"1","s":"2"}}}`,
		`{"s":"a","a":{"x":{},"x":{}}}`,
		`{"s":"a","c":tru}`,
	} {
		if rec, ok := scanViewer(s); ok {
			t.Errorf("scanViewer took %q as %+v", s, rec)
		}
	}
	if rec, ok := decodeViewer(`{"s":"a\u0062","S":"c"}`); !ok || rec.Subject != "c" {
		t.Errorf("decodeViewer of an escaped, case-folded field = %+v, %v; want encoding/json's answer", rec, ok)
	}
}

// FuzzStoredViewer: whatever the session holds, the hand decoder either
// refuses it or agrees with encoding/json.
func FuzzStoredViewer(f *testing.F) {
	for _, v := range viewerSamples {
		rec, err := toStored(v, "KEY", time.UnixMilli(1760000000123))
		if err != nil {
			f.Fatal(err)
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(raw))
	}
	f.Add(`{"s":"a","a":{"x":{"s":"v","n":2,"b":true,"sa":["p"],"na":[1e-3]}}}`)
	f.Add(`{"s":"a","i":1760000000}`)
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := scanViewer(s)
		if !ok {
			return
		}
		var viaJSON storedViewer
		if err := json.Unmarshal([]byte(s), &viaJSON); err != nil {
			t.Fatalf("scanViewer took %q, which encoding/json refuses: %v", s, err)
		}
		viaJSON, ok = asScanned(viaJSON)
		if !ok {
			t.Fatalf("scanViewer took %q, whose attributes encoding/json reads as no viewer's", s)
		}
		if !reflect.DeepEqual(fast, viaJSON) {
			t.Fatalf("scanViewer(%q) = %+v, encoding/json %+v", s, fast, viaJSON)
		}
	})
}
