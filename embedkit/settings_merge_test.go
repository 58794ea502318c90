package embedkit

import (
	"reflect"
	"testing"
)

// TestMergeSettingsEveryKey checks that every settings key is kept from
// the defaults and can be overridden.
func TestMergeSettingsEveryKey(t *testing.T) {
	typ := reflect.TypeFor[EmbedSessionSettings]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			var base, over EmbedSessionSettings
			setField(reflect.ValueOf(&base).Elem().Field(i), false)
			got := base.Merge(&EmbedSessionSettings{})
			if !reflect.DeepEqual(*got, base) {
				t.Errorf("policy value lost: %+v", got)
			}
			setField(reflect.ValueOf(&over).Elem().Field(i), true)
			got = base.Merge(&over)
			if !reflect.DeepEqual(*got, over) {
				t.Errorf("target value not applied: %+v", got)
			}
		})
	}
	if (*EmbedSessionSettings)(nil).Merge(nil) != nil {
		t.Error("nil.Merge(nil) != nil")
	}
}

// setField sets a *bool or *string field to a value that depends on alt.
func setField(f reflect.Value, alt bool) {
	switch f.Type().Elem().Kind() {
	case reflect.Bool:
		f.Set(reflect.ValueOf(new(alt)))
	case reflect.String:
		s := "a"
		if alt {
			s = "b"
		}
		f.Set(reflect.ValueOf(&s))
	}
}
