package report

import "testing"

// FuzzParse: the strict report parser never panics, and whatever it accepts
// re-encodes to a report it accepts again with the same content.
func FuzzParse(f *testing.F) {
	good, _ := Marshal(sample())
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema_version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		b, err := Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := Parse(b)
		if err != nil || r2 != r {
			t.Fatalf("round trip changed the report: %v", err)
		}
	})
}
