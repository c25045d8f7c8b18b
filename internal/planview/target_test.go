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
	scope := func(name, target string) ScopeInput {
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
