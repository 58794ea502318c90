package gorillasession

import (
	"encoding/json"
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
