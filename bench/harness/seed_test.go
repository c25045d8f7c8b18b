package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Seeding must leave exactly what the CLI's CreateSecret writes: the name,
// the canonical value and the three reserved tags (SPEC §4).
func TestSeed_WritesNamesTagsAndValuesLikeTheCLI(t *testing.T) {
	srv := emulatortest.Start(t)
	ctx := context.Background()
	ctl := srv.Control()
	c, err := NewCorpus(CorpusSpec{RepositoryID: "o/r", SourceRoot: "s", Prefix: "bench/s", N: 45, ValueBytes: 200, Seed: 9})
	require.NoError(t, err)

	before, err := ctl.Stats(ctx)
	require.NoError(t, err)
	require.NoError(t, Seed(ctx, NewClient(srv.URL), c))
	require.NoError(t, MakeStale(ctx, NewClient(srv.URL), c, EveryTenth(len(c.Docs))))
	after, err := ctl.Stats(ctx)
	require.NoError(t, err)
	d := Sub(after, before)
	assert.Equal(t, Calls{"CreateSecret": 45, "PutSecretValue": 5}, d.Calls)
	assert.Equal(t, int64(50), d.Calls.Mutations())

	st, err := ctl.State(ctx)
	require.NoError(t, err)
	require.Len(t, st.Secrets, 45)
	byName := map[string]emulator.SecretDump{}
	for _, s := range st.Secrets {
		byName[s.Name] = s
	}
	for i, doc := range c.Docs {
		s, ok := byName[doc.Name]
		require.True(t, ok, doc.Name)
		assert.Equal(t, c.Tags(doc), s.Tags)
		want := doc.Value
		if i%10 == 0 {
			want = doc.Stale
		}
		var cur string
		for _, v := range s.Versions {
			for _, st := range v.Stages {
				if st == "AWSCURRENT" && v.SecretString != nil {
					cur = *v.SecretString
				}
			}
		}
		assert.Equal(t, string(want), cur, doc.Name)
	}

	require.NoError(t, ctl.SetFaults(ctx, emulator.Faults{LatencyMS: 1, Quotas: true}))
	f := srv.Emu.Faults()
	assert.True(t, f.Quotas)
	require.NoError(t, ctl.Reset(ctx))
	st, err = ctl.State(ctx)
	require.NoError(t, err)
	assert.Empty(t, st.Secrets)
}
