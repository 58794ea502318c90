package gorillasession

import (
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"
)

// TestCompactSerializerRoundTrip: every supported value type comes back as
// itself, and the encoding starts with the compact form's magic.
func TestCompactSerializerRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[any]any
	}{
		{"empty", map[any]any{}},
		{"the demo's values", map[any]any{
			"embedkit.viewer": `{"sub":"ana","groups":["sales"]}`, "session_key": "k3y",
			"ledgerly.login_at": int64(1767225600), "ledgerly.prefs": `{"l":"de-DE"}`,
		}},
		{"every type", map[any]any{
			"s": "ünïcode", "y": []byte{0, 1, 2}, "t": true, "f": false,
			"i": -42, "l": int64(math.MinInt64), "d": 3.25, "e": "",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := CompactSerializer{}.Serialize(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, compactMagic) {
				t.Fatalf("encoded %x, want the compact form", b)
			}
			out := map[any]any{}
			if err := (CompactSerializer{}).Deserialize(b, &out); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, tc.in) {
				t.Errorf("round trip = %#v, want %#v", out, tc.in)
			}
		})
	}
}

// TestCompactSerializerFallsBackToGob: values the compact form does not
// hold are written with encoding/gob, as before, and read back.
func TestCompactSerializerFallsBackToGob(t *testing.T) {
	for name, in := range map[string]map[any]any{
		"an unsigned number": {"n": uint(7)},
		"a non-string key":   {1: "one"},
		"a slice of strings": {"flashes": []string{"a"}},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := CompactSerializer{}.Serialize(in)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.HasPrefix(b, compactMagic) {
				t.Fatal("written in the compact form")
			}
			out := map[any]any{}
			if err := (CompactSerializer{}).Deserialize(b, &out); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(out, in) {
				t.Errorf("round trip = %#v, want %#v", out, in)
			}
		})
	}
}

// TestCompactSerializerMalformed: a compact value that does not parse is an
// error, never a panic or a half-filled session.
func TestCompactSerializerMalformed(t *testing.T) {
	good, _ := CompactSerializer{}.Serialize(map[any]any{"k": "v", "n": int64(7)})
	for name, b := range map[string][]byte{
		"truncated":   good[:len(good)-1],
		"trailing":    append(bytes.Clone(good), 0),
		"unknown tag": append(append(bytes.Clone(compactMagic), 1, 1, 'k'), 'z'),
		"huge count":  append(bytes.Clone(compactMagic), 0xff, 0xff, 0xff, 0xff, 0x0f),
		"huge length": append(bytes.Clone(compactMagic), 1, 0xff, 0xff, 0x03),
		"only magic":  bytes.Clone(compactMagic),
	} {
		t.Run(name, func(t *testing.T) {
			out := map[any]any{}
			if err := (CompactSerializer{}).Deserialize(b, &out); err == nil {
				t.Errorf("decoded %#v", out)
			}
		})
	}
}

// TestGobCookiesStillRead: a cookie written by securecookie's default
// (gob) with the same keys is read by SecureCookieStore, and saving the
// session again writes the compact form, so hosts move over without
// signing anyone out.
func TestGobCookiesStillRead(t *testing.T) {
	hash, block := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	old := sessions.NewCookieStore(hash, block)
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	s, _ := old.New(r, "s")
	s.Values["session_key"] = "k1"
	s.Values["login_at"] = int64(1767225600)
	if err := old.Save(r, w, s); err != nil {
		t.Fatal(err)
	}
	cookie := w.Result().Cookies()[0]

	cs := SecureCookieStore(hash, block)
	r = httptest.NewRequest(http.MethodGet, "/", nil)
	r.AddCookie(cookie)
	got, err := cs.Get(r, "s")
	if err != nil || got.IsNew || got.Values["session_key"] != "k1" || got.Values["login_at"] != int64(1767225600) {
		t.Fatalf("old cookie read as %#v (new %v, err %v)", got.Values, got.IsNew, err)
	}
	w = httptest.NewRecorder()
	if err := cs.Save(r, w, got); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	codec := securecookie.New(hash, block).SetSerializer(rawBytes{&raw})
	if err := codec.Decode("s", w.Result().Cookies()[0].Value, new(any)); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(raw, compactMagic) {
		t.Error("the session saved again is not in the compact form")
	}
}

// rawBytes is a securecookie serializer that keeps the decoded bytes.
type rawBytes struct{ b *[]byte }

func (r rawBytes) Serialize(any) ([]byte, error) { return nil, nil }
func (r rawBytes) Deserialize(src []byte, _ any) error {
	*r.b = bytes.Clone(src)
	return nil
}

// FuzzCompactSerializer: any bytes deserialize without a panic, and what
// deserializes serializes back to a value that deserializes the same.
func FuzzCompactSerializer(f *testing.F) {
	good, _ := CompactSerializer{}.Serialize(map[any]any{"k": "v", "n": int64(7), "b": true, "d": 1.5, "y": []byte("x"), "i": 3})
	f.Add(good)
	f.Add(bytes.Clone(compactMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		out := map[any]any{}
		if err := (CompactSerializer{}).Deserialize(append(bytes.Clone(compactMagic), b...), &out); err != nil {
			return
		}
		again, err := CompactSerializer{}.Serialize(out)
		if err != nil {
			t.Fatal(err)
		}
		back := map[any]any{}
		if err := (CompactSerializer{}).Deserialize(again, &back); err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		if !reflect.DeepEqual(normalizeNaN(back), normalizeNaN(out)) {
			t.Fatalf("%#v re-encoded as %#v", out, back)
		}
	})
}

// normalizeNaN replaces NaN floats, which never equal themselves, by a
// marker.
func normalizeNaN(m map[any]any) map[any]any {
	for k, v := range m {
		if f, ok := v.(float64); ok && math.IsNaN(f) {
			m[k] = "NaN"
		}
	}
	return m
}
