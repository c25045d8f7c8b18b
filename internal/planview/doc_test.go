package planview

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
	_, err = Parse([]byte(rest[start : start+end]))
	require.NoError(t, err)
}
