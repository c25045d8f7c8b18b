package planview

import (
	"reflect"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// FuzzParse: the strict plan-file reader never panics; every failure is a
// classified *Error; whatever it accepts is a valid View that re-encodes to
// a file it accepts again with the same content, and renders without
// panicking.
func FuzzParse(f *testing.F) {
	for _, in := range fixtures(f) {
		for _, shown := range []bool{false, true} {
			b, err := Marshal(Build(in, model.Redaction{ShowNames: shown}))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema_version":"sops-aws-sync/plan/v1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			if c := classOf(err); c != ClassMalformed && c != ClassUnknownSchema {
				t.Fatalf("unclassified error %T %v", err, err)
			}
			return
		}
		if err := v.Validate(); err != nil {
			t.Fatalf("accepted an invalid view: %v", err)
		}
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := Parse(b)
		if err != nil || !reflect.DeepEqual(v, v2) {
			t.Fatalf("round trip changed the plan: %v", err)
		}
		_ = Text(v)
		_ = MarkdownCapped(v, 4096)
	})
}
