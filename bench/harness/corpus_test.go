package harness

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

func TestNewCorpus_NamesPathsTagsAndCanonicalValues(t *testing.T) {
	c, err := NewCorpus(CorpusSpec{RepositoryID: "o/r", SourceRoot: "n50/", Prefix: "bench/n50/", N: 50, ValueBytes: 1024, Seed: 3})
	require.NoError(t, err)
	require.Len(t, c.Docs, 50)
	assert.Equal(t, model.Scope{RepositoryID: "o/r", SourceRoot: "n50", Prefix: "bench/n50"}, c.Scope)

	seen := map[string]bool{}
	for i, d := range c.Docs {
		// SPEC §3.4: name = prefix + "/" + (path − root + "/" − suffix).
		rel := strings.TrimSuffix(strings.TrimPrefix(d.Path, "n50/"), ".sops.json")
		assert.Equal(t, "bench/n50/"+rel, d.Name, "doc %d", i)
		assert.True(t, strings.HasSuffix(d.Path, ".sops.json"))

		// The value is the RFC 8785 form of the plaintext, about 1 KiB.
		canon, err := jcs.Transform(d.Plain)
		require.NoError(t, err)
		assert.Equal(t, canon, d.Value)
		assert.InDelta(t, 1024, len(d.Value), 64)
		assert.False(t, bytes.Equal(d.Plain, d.Value), "the committed plaintext is not already canonical")
		assert.False(t, bytes.Equal(d.Value, d.Stale))
		var obj map[string]any
		require.NoError(t, json.Unmarshal(d.Stale, &obj))

		assert.False(t, seen[string(d.Value)], "values differ per secret")
		seen[string(d.Value)] = true

		assert.Equal(t, map[string]string{
			model.TagManagedBy: model.ManagedByValue,
			model.TagScope:     c.Scope.Digest(),
			model.TagSource:    model.SourceDigest(d.Path),
		}, c.Tags(d))
	}

	again, err := NewCorpus(CorpusSpec{RepositoryID: "o/r", SourceRoot: "n50", Prefix: "bench/n50", N: 50, ValueBytes: 1024, Seed: 3})
	require.NoError(t, err)
	assert.Equal(t, c.Docs, again.Docs, "generation is reproducible from the seed")
}

func TestNewCorpus_RejectsTinyValues(t *testing.T) {
	_, err := NewCorpus(CorpusSpec{N: 1, ValueBytes: 10})
	assert.Error(t, err)
}
