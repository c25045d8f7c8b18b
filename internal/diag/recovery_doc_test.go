package diag

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecoveryDocHasARowPerImportClass: every class import emits (the
// import family, and the warnings of a secret it skips) has a row of
// docs/recovery.md whose first cell names it, so an operator who meets
// one finds what happened, what was written and what to do; a class added
// to the registry without its row fails here.
func TestRecoveryDocHasARowPerImportClass(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "recovery.md"))
	require.NoError(t, err)
	rows := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 {
			continue
		}
		for _, e := range Entries() {
			if strings.Contains(cells[0], "`"+e.Class+"`") {
				rows[e.Class] = true
			}
		}
	}
	n := 0
	for _, e := range Entries() {
		if e.Family == FamilyImport || strings.HasPrefix(e.Class, "warning:import-") {
			n++
			assert.True(t, rows[e.Class], "docs/recovery.md has no row for %s", e.Class)
		}
	}
	assert.Equal(t, 16, n, "the import classes (8 import:*, 8 warning:import-*)")
}
