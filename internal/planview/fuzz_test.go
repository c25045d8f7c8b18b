package planview

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

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
			require.Contains(t, []string{ClassMalformed, ClassUnknownSchema}, classOf(err), "unclassified error %T %v", err, err)
			return
		}
		require.NoError(t, v.Validate(), "accepted an invalid view")
		b, err := Marshal(v)
		require.NoError(t, err)
		v2, err := Parse(b)
		require.NoError(t, err, "round trip")
		require.True(t, reflect.DeepEqual(v, v2), "round trip changed the plan")
		_ = Text(v)
		_ = MarkdownCapped(v, 4096)
	})
}
