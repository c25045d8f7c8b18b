package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

type workflow struct {
	Jobs map[string]struct {
		Permissions map[string]string `yaml:"permissions"`
		Steps       []struct {
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestReleaseWorkflowPushesAndAttestsTheImage: the release job builds the
// image from release.sh's dist, pushes it, and attests the digest it built
// (not a tag) in the registry too, with the permission to push.
func TestReleaseWorkflowPushesAndAttestsTheImage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "release.yml"))
	require.NoError(t, err)
	var wf workflow
	require.NoError(t, yaml.Unmarshal(b, &wf))
	job, ok := wf.Jobs["release"]
	require.True(t, ok)
	assert.Equal(t, "write", job.Permissions["packages"])
	assert.Equal(t, "write", job.Permissions["id-token"])
	assert.Equal(t, "write", job.Permissions["attestations"])

	order := map[string]int{}
	for i, s := range job.Steps {
		switch {
		case strings.Contains(s.Run, "./scripts/release.sh"):
			order["release.sh"] = i
		case s.ID == "image" && strings.Contains(s.Run, "./scripts/containerimage build -dist dist"):
			order["build"] = i
		case strings.Contains(s.Run, "./scripts/containerimage push -layout dist/image"):
			order["push"] = i
		case strings.HasPrefix(s.Uses, "actions/attest-build-provenance@") && s.With["subject-digest"] != "":
			order["attest"] = i
			assert.Equal(t, "${{ steps.image.outputs.digest }}", s.With["subject-digest"])
			assert.Equal(t, "${{ steps.image.outputs.name }}", s.With["subject-name"])
			assert.Equal(t, "true", s.With["push-to-registry"])
		}
	}
	require.Len(t, order, 4, "release.sh, image build, push and attestation steps: %v", order)
	assert.Less(t, order["release.sh"], order["build"])
	assert.Less(t, order["build"], order["push"])
	assert.Less(t, order["push"], order["attest"])
}
