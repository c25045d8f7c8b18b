package planview

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestParameterStoreDeletionIsShownImmediate (SPEC §16): a Parameter Store
// scope's deletions are shown as immediate and irreversible, counted
// against --max-deletions, in text and Markdown alike; its target is in
// the plan file and reads back; a Secrets Manager scope's plan is as
// before (no target key, no such line); another target value is refused.
func TestParameterStoreDeletionIsShownImmediate(t *testing.T) {
	ops := []Operation{
		{Ordinal: 1, Name: "app/a", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired},
		{Ordinal: 2, Name: "app/b", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired},
		{Ordinal: 3, Name: "app/c", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
	}
	scope := func(name string, target model.Target) ScopeInput {
		return ScopeInput{Name: name, Region: "us-east-1", Status: vocab.StatusDrift, Verification: vocab.VerificationNotRun,
			Operations: ops, Target: target}
	}
	v := Build(Input{Scopes: []ScopeInput{scope("ps", model.TargetParameterStore), scope("sm", model.TargetSecretsManager)}}, model.Redaction{})
	require.NoError(t, v.Validate())
	assert.Equal(t, model.TargetParameterStore, v.Scopes[0].Target)
	assert.Empty(t, v.Scopes[1].Target, "a Secrets Manager scope records no target")
	for format, out := range map[string]string{"text": Text(v), "markdown": Markdown(v)} {
		assert.Equal(t, 2, strings.Count(out, "deleted at once from Parameter Store (no recovery window: cannot be undone; counts as a deletion)"), format)
		assert.Equal(t, 1, strings.Count(out, "Parameter Store: 2 deletions are immediate and cannot be undone"), format)
		assert.Contains(t, out, "counted against --max-deletions", format)
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(b), `"target":"parameter-store"`))
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, v, back)

	bad := v
	bad.Scopes = []ScopeView{v.Scopes[0]}
	bad.Scopes[0].Target = "secrets-manager"
	assert.Error(t, bad.Validate(), "only parameter-store is written")

	one := Build(Input{Scopes: []ScopeInput{scope("ps", model.TargetParameterStore)}}, model.Redaction{})
	one.Scopes[0].Operations = one.Scopes[0].Operations[1:]
	one.Scopes[0].Counts = Count(one.Scopes[0].Operations)
	assert.Contains(t, Text(one), "Parameter Store: 1 deletion is immediate")
}

// TestRegression_ParameterStoreScopeRenderedInSecretsManagersWords: a
// parameter-store scope was rendered in Secrets Manager's words ("No
// changes: AWS Secrets Manager matches the commit.", "Schedule deletion",
// "to schedule for deletion") for a deletion that is immediate. Every
// line about the scope now takes the target's words from the target
// table (SPEC §16), in text and Markdown; a Secrets Manager scope reads
// as before, and a run of both says the deletion of both kinds.
func TestRegression_ParameterStoreScopeRenderedInSecretsManagersWords(t *testing.T) {
	unchanged := []Operation{{Ordinal: 1, Name: "app/a", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual}}
	deleting := []Operation{{Ordinal: 1, Name: "app/a", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired}}
	scope := func(target model.Target, status vocab.Status, ops []Operation) Input {
		return Input{Scopes: []ScopeInput{{Name: "s", Region: "us-east-1", Status: status, Verification: vocab.VerificationNotRun,
			Operations: ops, Target: target}}}
	}
	for format, render := range map[string]func(View) string{"text": Text, "markdown": Markdown} {
		ps := render(Build(scope(model.TargetParameterStore, vocab.StatusConverged, unchanged), model.Redaction{}))
		assert.Contains(t, ps, "No changes: Parameter Store matches the commit.", format)
		assert.NotContains(t, ps, "Secrets Manager", format)

		ps = render(Build(scope(model.TargetParameterStore, vocab.StatusDrift, deleting), model.Redaction{}))
		assert.Contains(t, ps, "Delete (1):", format)
		assert.Contains(t, ps, "resource-0001 delete (no document in the commit)", format)
		assert.Contains(t, ps, "1 to delete, 0 unchanged", format)
		for _, sm := range []string{"Secrets Manager", "Schedule deletion", "schedule for deletion", "schedule-delete", "schedule deletion"} {
			assert.NotContains(t, ps, sm, format)
		}

		sm := render(Build(scope(model.TargetSecretsManager, vocab.StatusDrift, deleting), model.Redaction{}))
		assert.Contains(t, sm, "Schedule deletion (1):", format)
		assert.Contains(t, sm, "resource-0001 schedule-delete (no document in the commit)", format)
		assert.Contains(t, sm, "1 to schedule for deletion", format)
		assert.NotContains(t, sm, "Parameter Store", format)
	}
	both := Build(Input{Scopes: []ScopeInput{scope(model.TargetParameterStore, vocab.StatusDrift, deleting).Scopes[0],
		func() ScopeInput { s := scope("", vocab.StatusDrift, deleting).Scopes[0]; s.Name = "t"; return s }()}}, model.Redaction{})
	assert.Contains(t, Text(both), "All scopes: Plan: 0 to create, 0 to update, 0 to restore, 2 to delete or schedule for deletion, 0 unchanged.")
	assert.Contains(t, Markdown(both), "| restore | deletion | unchanged |")
}
