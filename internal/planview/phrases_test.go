package planview

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
