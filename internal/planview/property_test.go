package planview

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// genInput draws a run of one to four scopes (distinct names, Regions,
// statuses) whose desired keys start with "dk", whose out-of-band keys
// start with "OOB_", whose values hold "CANARY" and whose names start
// with "prod/app/".
func genInput(t *rapid.T) Input {
	var in Input
	if rapid.Bool().Draw(t, "resolved") {
		in.GitRevision = rev
	}
	names := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{model.DefaultScopeName, "prod-eu", "staging", "prod-us", "dr-2"}), 1, 4, rapid.ID[string]).Draw(t, "scopes")
	for _, name := range names {
		sc := ScopeInput{Name: name,
			Region:       rapid.SampledFrom([]string{"", "eu-west-1", "us-east-1", "ap-southeast-2"}).Draw(t, "region"),
			Status:       rapid.SampledFrom(vocab.Statuses).Draw(t, "status"),
			Verification: rapid.SampledFrom(vocab.Verifications).Draw(t, "verification"),
			Operations:   genOperations(t)}
		if sc.Status == vocab.StatusConverged && sc.Verification == vocab.VerificationNotRun {
			// Nothing to do: such a scope lists only unchanged secrets.
			sc.Operations = slices.DeleteFunc(sc.Operations, func(o Operation) bool { return o.Action != vocab.ActionUnchanged })
		}
		in.Scopes = append(in.Scopes, sc)
	}
	return in
}

func genOperations(t *rapid.T) []Operation {
	var out []Operation
	n := rapid.IntRange(0, 8).Draw(t, "n")
	keys := []string{"dka", "dkb", "dkc/x", "dk~d"}
	for i := range n {
		a := rapid.SampledFrom(vocab.Actions).Draw(t, "action")
		o := Operation{Ordinal: i + 1, Name: fmt.Sprintf("prod/app/s%d", i), Action: a}
		if a == vocab.ActionConflict {
			o.Conflict = rapid.SampledFrom(vocab.ConflictClasses).Draw(t, "class")
		} else {
			o.Reason = rapid.SampledFrom(a.Reasons()).Draw(t, "reason")
		}
		if a == vocab.ActionCreate || a == vocab.ActionUpdate || a == vocab.ActionAdopt {
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
			if a == vocab.ActionAdopt {
				// An adoption always compares with the live value made
				// outside this tool (SPEC §11).
				kind = rapid.IntRange(1, 3).Draw(t, "observed kind")
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
		out = append(out, o)
	}
	return out
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
		require.Len(t, v.Scopes, len(in.Scopes))
		var sum vocab.Counts
		for i, s := range v.Scopes {
			require.Equal(t, Count(s.Operations), s.Counts, "counts are not derived from the operations")
			require.Len(t, s.Operations, len(in.Scopes[i].Operations))
			sum = sum.Plus(s.Counts)
		}
		require.Equal(t, sum, v.Counts())
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
