package planview

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestResultsDocExampleIsAValidPlanFile keeps docs/results.md true: its
// example plan file parses.
func TestResultsDocExampleIsAValidPlanFile(t *testing.T) {
	b, err := os.ReadFile("../../docs/results.md")
	require.NoError(t, err)
	doc := string(b)
	i := strings.Index(doc, "## The plan file (`--plan-file`)")
	require.GreaterOrEqual(t, i, 0)
	rest := doc[i:]
	start := strings.Index(rest, "```json\n") + len("```json\n")
	end := strings.Index(rest[start:], "```")
	v, err := Parse([]byte(rest[start : start+end]))
	require.NoError(t, err)
	require.Equal(t, vocab.PlanSchema, v.SchemaVersion, "the example is of the schema written")
}
