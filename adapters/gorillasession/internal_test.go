package gorillasession

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestRecordListJSON(t *testing.T) {
	tests := []struct {
		name string
		list recordList
		want string
	}{
		{"empty", recordList{}, `[]`},
		{"same subject written once", recordList{{"a", "u1", 1}, {"b", "u1", 2}}, `[["a",1,"u1"],["b",2]]`},
		{"subject changes", recordList{{"a", "u1", 1}, {"b", "u2", 2}, {"c", "u1", 3}}, `[["a",1,"u1"],["b",2,"u2"],["c",3,"u1"]]`},
		{"empty subject", recordList{{"a", "", 1}}, `[["a",1]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.list)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("JSON = %s, want %s", b, tt.want)
			}
			var back recordList
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.list) {
				t.Errorf("round trip = %v, want %v", back, tt.list)
			}
		})
	}
	for _, bad := range []string{`{}`, `[["a"]]`, `[[1,2]]`, `[["a","b"]]`, `[["a",1,2]]`, `[["a",1,"s",4]]`} {
		t.Run("bad "+bad, func(t *testing.T) {
			var l recordList
			if err := json.Unmarshal([]byte(bad), &l); err == nil {
				t.Errorf("Unmarshal(%s) = %v, want error", bad, l)
			}
		})
	}
}

// TestSaveBoundedReplacesItsOwnCookie: a second save in one response
// replaces the session's earlier Set-Cookie line, and leaves other
// cookies, including one whose name starts with the session's, alone.
func TestSaveBoundedReplacesItsOwnCookie(t *testing.T) {
	cs := SecureCookieStore(bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	w := httptest.NewRecorder()
	w.Header().Add("Set-Cookie", "theme=dark; Path=/")
	w.Header().Add("Set-Cookie", "app-session-extra=1; Path=/")
	sess, err := cs.New(r, "app-session")
	if err != nil && sess == nil {
		t.Fatal(err)
	}
	for i := range 3 {
		sess.Values["n"] = i
		if err := saveBounded(w, r, sess); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, c := range w.Result().Cookies() {
		names = append(names, c.Name)
	}
	if want := []string{"theme", "app-session-extra", "app-session"}; !reflect.DeepEqual(names, want) {
		t.Errorf("cookies %v, want %v", names, want)
	}
}
