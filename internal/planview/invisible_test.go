package planview

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestRegression_InvisibleKeyNamesQuoted: key names that differ only by a
// character that renders as nothing (U+3164 HANGUL FILLER, which Go counts
// as printable, and the other default-ignorable code points) are quoted
// with the character escaped, in the text and the Markdown rendering, so two
// different key paths never look the same in a review.
func TestRegression_InvisibleKeyNamesQuoted(t *testing.T) {
	for _, invisible := range []string{"\u3164", "\u115f", "\u034f", "\ufe0f", "\u200b", "\U000e0041"} {
		in := single(rev, vocab.StatusDrift, []Operation{{Ordinal: 1, Name: "prod/app/x", Action: vocab.ActionCreate,
			Reason: vocab.ReasonAbsent, Keys: summary(t, `{"token":1,"token`+invisible+`":2}`, "")}}, nil)
		v := Build(in, model.Redaction{ShowNames: true})
		require.Equal(t, []string{"/token", "/token" + invisible}, v.Scopes[0].Operations[0].KeyPaths.Added)
		for name, out := range map[string]string{"text": Text(v), "markdown": Markdown(v)} {
			assert.NotContains(t, out, invisible, "%s: %U is written as an escape", name, []rune(invisible))
			var lines []string
			for _, l := range strings.Split(out, "\n") {
				// Markdown's diff block moves the symbol to the first
				// column: "+       /token".
				l = strings.Join(strings.Fields(l), " ")
				if strings.Contains(l, "+ /token") || strings.Contains(l, `+ "/token`) {
					lines = append(lines, l)
				}
			}
			require.Len(t, lines, 2, "%s:\n%s", name, out)
			assert.NotEqual(t, lines[0], lines[1], "%s: the two paths must look different", name)
			assert.Equal(t, "+ /token", lines[0])
		}
	}
}
