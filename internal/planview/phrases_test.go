package planview

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestEveryActionHasWords: a new action in vocab's table fails here until
// the renderers have its symbol, its section title (operations) and the
// words of each of its reasons; a new conflict class until it has its text.
func TestEveryActionHasWords(t *testing.T) {
	for _, a := range vocab.Actions {
		if a == vocab.ActionUnchanged {
			continue // unchanged names are counted, never listed
		}
		assert.NotEmpty(t, symbols[a], "action %s has no symbol", a)
		if a == vocab.ActionConflict {
			continue
		}
		assert.NotEmpty(t, titles[a], "operation %s has no section title", a)
	}
	for _, a := range vocab.Actions {
		if a == vocab.ActionConflict {
			continue
		}
		for _, r := range a.Reasons() {
			assert.NotEmpty(t, reasonPhrases[r], "reason %s of %s has no words", r, a)
		}
	}
	for _, c := range vocab.ConflictClasses {
		assert.NotEmpty(t, conflictText[c][0], "conflict class %s has no text", c)
		assert.NotEmpty(t, conflictText[c][1], "conflict class %s has no next action", c)
		for _, k := range c.Cases() {
			assert.NotEmpty(t, caseText[k][0], "case %s of %s has no text", k, c)
			assert.NotEmpty(t, caseText[k][1], "case %s of %s has no next action", k, c)
		}
	}
}

// TestConflictWordsInTheTargetsWords: a conflict every target can meet
// names the target's resource with the article it takes and the deletion
// it makes; the texts of one service's own classes are left as they are.
func TestConflictWordsInTheTargetsWords(t *testing.T) {
	entry := model.TargetWords{Resource: "entry"}
	got, ok := conflictWords(vocab.ConflictOwnership, "", entry, true)
	require.True(t, ok)
	assert.Equal(t, "an entry with this name exists and is not owned by this scope", got[0])
	assert.Contains(t, got[1], "to take over an entry made by hand")
	got, _ = conflictWords(vocab.ConflictOwnership, "", model.TargetWords{Resource: "secret"}, false)
	assert.Equal(t, "a secret with this name exists and is not owned by this scope", got[0])
	got, _ = conflictWords(vocab.ConflictSource, "", entry, true)
	assert.Contains(t, got[1], "let the old entry be deleted first")
	got, _ = conflictWords(vocab.ConflictSource, "", model.TargetWords{Resource: "secret"}, false)
	assert.Contains(t, got[1], "let the old secret be scheduled for deletion first")
	got, ok = conflictWords(vocab.ConflictRotation, vocab.CaseRotationInFlight, entry, true)
	require.True(t, ok)
	assert.Equal(t, caseText[vocab.CaseRotationInFlight], got)
	_, ok = conflictWords("no-such-class", "", entry, true)
	assert.False(t, ok)
}
