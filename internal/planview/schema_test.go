package planview

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/schemas"
)

// TestOldSchemasMatchTheirTypes: the published schemas of plan v2 and v1
// (schemas/plan-v2.schema.json, plan-v1.schema.json) have exactly the keys
// of the types Parse reads those files with (viewV2, viewV1), closed
// objects and their enums of vocab's values; v3's is held by the schemas
// package's TestSchemasMatchTheGoTypes.
func TestOldSchemasMatchTheirTypes(t *testing.T) {
	enums := map[reflect.Type][]string{}
	add := func(t reflect.Type, vs ...string) { enums[t] = vs }
	var statuses, verifications, actions []string
	for _, s := range vocab.Statuses {
		statuses = append(statuses, string(s))
	}
	for _, v := range vocab.Verifications {
		verifications = append(verifications, string(v))
	}
	for _, a := range vocab.Actions {
		actions = append(actions, string(a))
	}
	add(reflect.TypeFor[vocab.Status](), statuses...)
	add(reflect.TypeFor[vocab.Verification](), verifications...)
	add(reflect.TypeFor[vocab.Action](), actions...)
	// A v2 or v1 operation has no fingerprint (v3's binding, SPEC §14).
	omit := map[string]bool{"Op.fingerprint": true}
	assert.Empty(t, schemas.Drift("plan-v2.schema.json", reflect.TypeFor[viewV2](), omit, enums))
	assert.Empty(t, schemas.Drift("plan-v1.schema.json", reflect.TypeFor[viewV1](), omit, enums))
}
