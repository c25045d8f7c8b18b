package planview

import (
	"testing"

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
		if symbols[a] == "" {
			t.Errorf("action %s has no symbol", a)
		}
		if a == vocab.ActionConflict {
			continue
		}
		if titles[a] == "" {
			t.Errorf("operation %s has no section title", a)
		}
	}
	for _, a := range vocab.Actions {
		if a == vocab.ActionConflict {
			continue
		}
		for _, r := range a.Reasons() {
			if reasonPhrases[r] == "" {
				t.Errorf("reason %s of %s has no words", r, a)
			}
		}
	}
	for _, c := range vocab.ConflictClasses {
		if conflictText[c][0] == "" || conflictText[c][1] == "" {
			t.Errorf("conflict class %s has no text", c)
		}
	}
}
