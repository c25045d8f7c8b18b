package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleaseWorkflowPublishesTheManifests: the release job generates both
// manifests from the dist release.sh wrote and attaches them to the release.
func TestReleaseWorkflowPublishesTheManifests(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	require.NoError(t, err)
	text := string(b)
	gen := strings.Index(text, "go run ./scripts/pkgmeta -dist dist -out dist")
	create := strings.Index(text, `gh release create "$TAG"`)
	require.GreaterOrEqual(t, gen, 0, "a step generates the manifests")
	require.Greater(t, create, gen, "the release is created after they are generated")
	assert.Greater(t, gen, strings.Index(text, "./scripts/release.sh"))
	cmd := text[create:]
	cmd = cmd[:strings.Index(cmd, "--verify-tag")]
	assert.Contains(t, cmd, "dist/"+AquaFile)
	assert.Contains(t, cmd, "dist/"+FormulaFile)
}
