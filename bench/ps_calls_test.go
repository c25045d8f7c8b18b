package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// ciPSN is the CI-sized Parameter Store scope: two listing pages of 50 and
// six GetParameters batches, and a first sync of ciPSN creates that takes
// ciPSN/3 s under PutParameter's 3/s.
const ciPSN = 60

// TestRegression_ParameterStoreNoopDescribedEveryName keeps the Parameter
// Store rows of `make bench-ps` working, with their exact call
// budgets: a no-op sync of ciPSN parameters is the scope's listing and the
// orphan check's listing (2 × ⌈N/50⌉ DescribeParameters) and ⌈N/10⌉
// GetParameters, nothing else. Before the observation took the listing's
// metadata (engine.Surveyor) it described every name, one
// DescribeParameters and one ListTagsForResource each (at 10/s: 1,000 s
// for 10,000 parameters); the first sync is one precondition
// DescribeParameters and one PutParameter per parameter, three listings
// before and one verification after, never throttled. The harness's bound
// and row verdict are computed for both rows.
func TestRegression_ParameterStoreNoopDescribedEveryName(t *testing.T) {
	dir := t.TempDir()
	cli := filepath.Join(dir, "sops-aws-sync")
	home := filepath.Join(dir, "home")
	keyFile := filepath.Join(dir, "keys.txt")
	require.NoError(t, os.Mkdir(home, 0o700))
	require.NoError(t, harness.BuildPackage("..", "./cmd/sops-aws-sync", cli))
	key, err := harness.NewAgeKey()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(keyFile, []byte(key.Identity+"\n"), 0o600))
	corpus, err := harness.NewCorpus(harness.CorpusSpec{RepositoryID: "bench/ci", SourceRoot: "ps", Prefix: "bench/ps",
		N: ciPSN, ValueBytes: 512, Seed: 35, Target: model.TargetParameterStore})
	require.NoError(t, err)
	ct, err := harness.EncryptAll(corpus.Docs, key.Recipient)
	require.NoError(t, err)
	repo, err := harness.WriteRepo(filepath.Join(dir, "git"), []harness.Corpus{corpus}, [][][]byte{ct})
	require.NoError(t, err)
	srv := emulatortest.Start(t)
	ctl := srv.Control()
	ctx := context.Background()

	run := func(t *testing.T) (int, harness.Delta, vocab.Counts, vocab.Status) {
		t.Helper()
		report := filepath.Join(t.TempDir(), "report.json")
		before, err := ctl.Stats(ctx)
		require.NoError(t, err)
		m, err := harness.Run(ctx, harness.Invocation{Bin: cli, Dir: home, Args: []string{"sync", "--repository", repo.Dir,
			"--revision", repo.Commit, "--repository-id", corpus.Scope.RepositoryID, "--source-root", corpus.Scope.SourceRoot,
			"--secret-prefix", corpus.Scope.Prefix, "--target", "parameter-store", "--aws-region", "us-east-1", "--report-file", report},
			Env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "SOPS_AGE_KEY_FILE=" + keyFile,
				"AWS_ACCESS_KEY_ID=AKIDTEST", "AWS_SECRET_ACCESS_KEY=test", "AWS_EC2_METADATA_DISABLED=true",
				"AWS_ENDPOINT_URL_SSM=" + srv.URL}})
		require.NoError(t, err)
		after, err := ctl.Stats(ctx)
		require.NoError(t, err)
		rep, err := harness.ReadReport(report)
		require.NoError(t, err, "stdout: %s", m.Stdout)
		return m.ExitCode, harness.Sub(after, before), rep.Counts, rep.Status
	}
	model20 := harness.Model{Latency: 20 * time.Millisecond}

	t.Run("no-op sync", func(t *testing.T) {
		require.NoError(t, ctl.SetFaults(ctx, emulator.Faults{Seed: 1}))
		require.NoError(t, harness.SeedParameters(ctx, harness.NewSSMClient(srv.URL), corpus))
		require.NoError(t, ctl.SetFaults(ctx, quotasOn))
		exit, d, counts, status := run(t)
		assert.Equal(t, 0, exit)
		assert.Equal(t, vocab.StatusConverged, status)
		assert.Equal(t, vocab.Counts{Unchanged: ciPSN}, counts)
		sc := harness.Scenario{Kind: harness.PSNoopSync, N: ciPSN, Concurrency: 28}
		assertCalls(t, harness.ExpectedCalls(sc), d)
		assert.Equal(t, harness.Calls{"DescribeParameters": 4, "GetParameters": 6}, d.Sent())
		assert.Zero(t, d.Calls.Mutations())
		assert.Empty(t, d.Throttled)
		assert.Equal(t, "DescribeParameters 0.067, GetParameters 0.100 (0.167 in all)", harness.PerParameter(d.Sent(), ciPSN))
		// 4 pages at 10/s: (4 − 1)/10 s + 20 ms; 6 batches at 40/s: less.
		b, f := model20.LowerBound(sc)
		assert.Equal(t, 320*time.Millisecond, b)
		assert.Equal(t, "obs₂(N)", f)
	})

	t.Run("first sync", func(t *testing.T) {
		require.NoError(t, ctl.Reset(ctx))
		require.NoError(t, ctl.SetFaults(ctx, quotasOn))
		exit, d, counts, status := run(t)
		assert.Equal(t, 0, exit)
		assert.Equal(t, vocab.StatusConverged, status)
		assert.Equal(t, vocab.Counts{Create: ciPSN}, counts)
		sc := harness.Scenario{Kind: harness.PSCreate, N: ciPSN, Concurrency: 28}
		assertCalls(t, harness.ExpectedCalls(sc), d)
		assert.Equal(t, int64(ciPSN), d.Sent()["PutParameter"])
		assert.Empty(t, d.Throttled, "PutParameter is paced under its 3/s")
		// 3 L + (60 − 1)/3 s + L + max(2 pages, 6 batches at 40/s: 125 ms + L).
		b, _ := model20.LowerBound(sc)
		assert.Equal(t, 60*time.Millisecond+19666666666+20*time.Millisecond+145*time.Millisecond, b)
		row := &harness.Row{Scenario: sc, Wall: b, Bound: b, Delta: d}
		v := harness.Judge(harness.Targets{PS: []*harness.Row{row}})
		assert.True(t, v[len(v)-1].Known && v[len(v)-1].Pass, "%+v", v[len(v)-1])
	})
}
