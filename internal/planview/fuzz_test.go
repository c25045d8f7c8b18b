package planview

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// FuzzParse: the strict plan-file reader (v2 and v1) never panics; every
// failure is a classified *Error; whatever it accepts is a valid View that
// renders without panicking; a v2 View re-encodes to a file it accepts
// again with the same content, a v1 View is never written.
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
	for _, name := range []string{"v1-full-names.json", "v1-full-hidden.json", "v1-invalid-hidden.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema_version":"sops-aws-sync/plan/v1"}`))
	f.Add([]byte(`{"schema_version":"sops-aws-sync/plan/v2","git_revision":"","names_shown":false,"scopes":[],"diagnostics":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			require.Contains(t, []string{diag.PlanfileMalformed, diag.PlanfileUnknownSchema}, classOf(err), "unclassified error %T %v", err, err)
			return
		}
		require.NoError(t, v.Validate(), "accepted an invalid view")
		_ = Text(v)
		_ = MarkdownCapped(v, 4096)
		if v.SchemaVersion == vocab.PlanSchemaV1 {
			require.Len(t, v.Scopes, 1, "a v1 file is one scope")
			_, err := Marshal(v)
			require.Equal(t, diag.PlanfileUnknownSchema, classOf(err), "a v1 view is never written")
			return
		}
		b, err := Marshal(v)
		require.NoError(t, err)
		v2, err := Parse(b)
		require.NoError(t, err, "round trip")
		require.True(t, reflect.DeepEqual(v, v2), "round trip changed the plan")
	})
}
