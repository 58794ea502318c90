package storedattr

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs map[string]any
		want  map[string]any
	}{
		{name: "none", attrs: nil, want: nil},
		{name: "empty", attrs: map[string]any{}, want: nil},
		{name: "every type", attrs: map[string]any{
			"region": "EMEA", "level": 3.5, "admin": true,
			"teams": []string{"a", "b"}, "scores": []float64{1, 2},
		}, want: map[string]any{
			"region": "EMEA", "level": 3.5, "admin": true,
			"teams": []string{"a", "b"}, "scores": []float64{1, 2},
		}},
		{name: "nil slices come back empty", attrs: map[string]any{"teams": []string(nil), "scores": []float64(nil)},
			want: map[string]any{"teams": []string{}, "scores": []float64{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored, err := FromViewer(tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(stored)
			if err != nil {
				t.Fatal(err)
			}
			var back map[string]Attr
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			got, ok := ToViewer(back)
			if !ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("round trip of %v = %#v, %v; want %#v (stored %s)", tc.attrs, got, ok, tc.want, b)
			}
		})
	}
}

func TestFromViewerRefusesOtherTypes(t *testing.T) {
	for name, v := range map[string]any{"int": 3, "any slice": []any{"a"}, "map": map[string]any{}, "nil": nil} {
		_, err := FromViewer(map[string]any{"x": v})
		if err == nil || !strings.Contains(err.Error(), `Viewer.Attributes["x"]`) || !strings.Contains(err.Error(), "want string, float64, bool") {
			t.Errorf("%s: err = %v, want one naming the attribute and the types", name, err)
		}
	}
}

func TestToViewerRefusesAnEmptyValue(t *testing.T) {
	if _, ok := ToViewer(map[string]Attr{"x": {}}); ok {
		t.Error("an attribute with no value read as one")
	}
}
