package planview

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// genInput draws a plan whose desired keys start with "dk", whose
// out-of-band keys start with "OOB_", whose values hold "CANARY" and
// whose names start with "prod/app/".
func genInput(t *rapid.T) Input {
	n := rapid.IntRange(0, 8).Draw(t, "n")
	var in Input
	if rapid.Bool().Draw(t, "resolved") {
		in.GitRevision = rev
	}
	keys := []string{"dka", "dkb", "dkc/x", "dk~d"}
	for i := range n {
		a := rapid.SampledFrom(vocab.Actions).Draw(t, "action")
		o := Operation{Ordinal: i + 1, Name: fmt.Sprintf("prod/app/s%d", i), Action: a}
		if a == vocab.ActionConflict {
			o.Conflict = rapid.SampledFrom(vocab.ConflictClasses).Draw(t, "class")
		} else {
			o.Reason = rapid.SampledFrom(a.Reasons()).Draw(t, "reason")
		}
		if a == vocab.ActionCreate || a == vocab.ActionUpdate {
			desired, observed := map[string]any{}, map[string]any{}
			for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom(keys), rapid.ID[string]).Draw(t, "desired") {
				desired[k] = "CANARY-d-" + k
			}
			for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom(append(keys, "OOB_x", "OOB_y/z")), rapid.ID[string]).Draw(t, "observed") {
				observed[k] = rapid.SampledFrom([]any{"CANARY-o", map[string]any{"OOB_inner": "CANARY-i"}}).Draw(t, "ov")
			}
			d, _ := json.Marshal(desired)
			ob, _ := json.Marshal(observed)
			var s keydiff.Summary
			kind := 0 // a create has no observed value
			if a == vocab.ActionUpdate {
				kind = rapid.IntRange(0, 3).Draw(t, "observed kind")
			}
			switch kind {
			case 0:
				s, _ = keydiff.Create(d)
			case 1:
				s = keydiff.Binary()
			case 2:
				s, _ = keydiff.Diff(d, []byte("CANARY not json"))
			default:
				s, _ = keydiff.Diff(d, ob)
			}
			o.Keys = &s
		}
		in.Operations = append(in.Operations, o)
	}
	return in
}

// TestPropertyRedactionHoldsForEveryPlan: for any plan, every output is
// free of values and out-of-band keys; with names hidden also of names and
// key paths; the plan file is valid and reads back as the same view; the
// summary is the count of the operations.
func TestPropertyRedactionHoldsForEveryPlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t)
		shown := rapid.Bool().Draw(t, "shown")
		v := Build(in, model.Redaction{ShowNames: shown})
		file, err := Marshal(v)
		require.NoError(t, err, "Build gave an invalid view")
		back, err := Parse(file)
		require.NoError(t, err, "round trip")
		require.True(t, reflect.DeepEqual(v, back), "round trip changed the view")
		require.Equal(t, Count(v.Operations), v.Summary, "summary is not derived from the operations")
		require.Len(t, v.Operations, len(in.Operations))
		forbidden := []string{"CANARY", "OOB_"}
		if !shown {
			forbidden = append(forbidden, "prod/app/", "/dk")
		}
		for _, out := range []string{string(file), Text(v), Markdown(v), MarkdownCapped(v, 2048)} {
			for _, f := range forbidden {
				require.NotContains(t, out, f, "output leaks (names shown %v)", shown)
			}
		}
	})
}
