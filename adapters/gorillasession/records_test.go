package gorillasession

import (
	"encoding/json"
	"reflect"
	"testing"
)

// recordSamples are record sets of every shape the cookie holds.
var recordSamples = []map[string]recordList{
	{},
	{"s:a": nil},
	{"s:a": {{I: "5e55", S: "ana", E: 1760000000000}}},
	{"s:a": {{I: "1", S: "ana", E: 1}, {I: "2", S: "ana", E: 2}, {I: "3", S: "ben", E: 3}, {I: "4", S: "", E: 4}}, "s:b": {{I: "9", S: "", E: 0}}},
	{`s:"quoted"\back`: {{I: "tab\there", S: "<ana&ben>", E: 5}}},
	{"s:ü": {{I: "ünï", S: "line\u2028sep\u2029", E: 6}, {I: "ctl\x01", S: "bad\xffutf8", E: -7}}},
}

// TestRecordsMatchEncodingJSON: the hand encoder writes what json.Marshal
// writes, and the hand decoder reads back what either wrote.
func TestRecordsMatchEncodingJSON(t *testing.T) {
	for _, recs := range recordSamples {
		want, err := json.Marshal(recs)
		if err != nil {
			t.Fatal(err)
		}
		got := encodeRecords(recs)
		if got != string(want) {
			t.Errorf("encodeRecords = %s\njson.Marshal  = %s", got, want)
		}
		var viaJSON map[string]recordList
		if err := json.Unmarshal(want, &viaJSON); err != nil {
			t.Fatal(err)
		}
		back, ok := decodeRecords(got)
		if !ok || !reflect.DeepEqual(normal(back), normal(viaJSON)) {
			t.Errorf("decodeRecords(%s) = %v, %v; want %v", got, back, ok, viaJSON)
		}
	}
}

// TestScanRecordsTakesTheCommonShape: a cookie of plain ids and subjects is
// read by the hand decoder, not by encoding/json.
func TestScanRecordsTakesTheCommonShape(t *testing.T) {
	v := encodeRecords(map[string]recordList{"s:k": {{I: "5e55000100c0ffee0ddba11f00dcafe1", S: "ana@example.com", E: 1760000000000}, {I: "5e55000200c0ffee0ddba11f00dcafe1", S: "ana@example.com", E: 1760000000001}}})
	if _, ok := scanRecords(v); !ok {
		t.Errorf("scanRecords refused %s", v)
	}
	for _, bad := range []string{"", "{", `{"k":[["a"]]}`, `{"k":[["a",01]]}`, `{"k":[["a",1,2]]}`, `{"k":[]} `, `{"k":[],"k":[]}`, `[]`} {
		if _, ok := scanRecords(bad); ok {
			t.Errorf("scanRecords took %q", bad)
		}
	}
	if _, ok := decodeRecords(`{"k":[["a"]]}`); ok {
		t.Error("decodeRecords took a record without an expiry")
	}
}

// FuzzRecords: whatever the cookie holds, the hand decoder either refuses
// it or agrees with encoding/json; and what the hand encoder writes,
// encoding/json reads back as the same records.
func FuzzRecords(f *testing.F) {
	for _, recs := range recordSamples {
		f.Add(encodeRecords(recs))
	}
	f.Add(`{"k":[["a",1],["b",2,"s"]],"j":[]}`)
	f.Add(`{"k":[["a",1.5]]}`)
	f.Fuzz(func(t *testing.T, s string) {
		var viaJSON map[string]recordList
		jsonErr := json.Unmarshal([]byte(s), &viaJSON)
		if fast, ok := scanRecords(s); ok {
			if jsonErr != nil {
				t.Fatalf("scanRecords took %q, which encoding/json refuses: %v", s, jsonErr)
			}
			if !reflect.DeepEqual(normal(fast), normal(viaJSON)) {
				t.Fatalf("scanRecords(%q) = %v, encoding/json %v", s, fast, viaJSON)
			}
		}
		if jsonErr != nil {
			return
		}
		var again map[string]recordList
		if err := json.Unmarshal([]byte(encodeRecords(viaJSON)), &again); err != nil {
			t.Fatalf("encodeRecords wrote what encoding/json cannot read: %v", err)
		}
		if !reflect.DeepEqual(normal(again), normal(viaJSON)) {
			t.Fatalf("encodeRecords round trip changed %v into %v", viaJSON, again)
		}
	})
}

// normal makes empty and nil lists compare equal.
func normal(m map[string]recordList) map[string]recordList {
	out := make(map[string]recordList, len(m))
	for k, l := range m {
		if len(l) == 0 {
			l = nil
		}
		out[k] = l
	}
	return out
}
