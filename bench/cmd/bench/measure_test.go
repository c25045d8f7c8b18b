package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func TestCheck_FlagsWhatAScenarioForbids(t *testing.T) {
	noop := harness.Scenario{Kind: harness.NoopSync, N: 100}
	calls := harness.ExpectedCalls(noop)
	assert.Empty(t, check(noop, 0, "converged", vocab.Counts{Unchanged: 100}, harness.Delta{Calls: calls}))

	wrote := harness.Calls{"PutSecretValue": 1}
	for k, v := range calls {
		wrote[k] = v
	}
	p := check(noop, 0, "converged", vocab.Counts{Unchanged: 99, Update: 1}, harness.Delta{Calls: wrote})
	assert.Contains(t, p, "1 mutating calls in a no-op run")
	assert.Contains(t, p, "unchanged 99 ≠ 100")

	create := harness.Scenario{Kind: harness.Create, N: 10}
	p = check(create, 5, "apply-failed", vocab.Counts{Create: 7}, harness.Delta{})
	assert.Equal(t, []string{"exit 5", "status apply-failed", "created 7 ≠ 10"}, p)

	changed := harness.Scenario{Kind: harness.Changed, N: 100, M: 10}
	assert.Equal(t, []string{"updated 9 ≠ 10"}, check(changed, 0, "converged", vocab.Counts{Update: 9}, harness.Delta{}))
}

func TestCallNotes_ThrottledAttemptsAreNotAlgorithmCalls(t *testing.T) {
	s := harness.Scenario{Kind: harness.NoopSync, N: 200}
	d := harness.Delta{Calls: harness.Calls{"ListSecrets": 2, "DescribeSecret": 200, "BatchGetSecretValue": 13}, Throttled: harness.Calls{"BatchGetSecretValue": 3}}
	assert.Empty(t, callNotes(s, d))

	d.Calls["GetSecretValue"] = 4
	assert.Equal(t, []string{"GetSecretValue 4 answered, algorithm says 0"}, callNotes(s, d))
}

// The SDK's own retry of a call whose answer it could not read is a
// transport event: named in the notes, not counted against the algorithm.
func TestCallNotes_SDKRetriesAreNamedNotCounted(t *testing.T) {
	s := harness.Scenario{Kind: harness.NoopSync, N: 200}
	d := harness.Delta{Calls: harness.Calls{"ListSecrets": 3, "DescribeSecret": 200, "BatchGetSecretValue": 11},
		Retries: harness.Calls{"ListSecrets": 1, "BatchGetSecretValue": 1}}
	assert.Equal(t, []string{"2 SDK retries (List 1, BatchGet 1)"}, callNotes(s, d))
}

func TestParseFlags_QuickDefaultsAndOverrides(t *testing.T) {
	o, err := parseFlags([]string{"-root", "../../..", "-quick"})
	assert.NoError(t, err)
	assert.Equal(t, []int{200, 1000}, o.sizes)
	assert.Equal(t, 1000, o.changedN)
	assert.Equal(t, 500, o.createN)
	assert.Equal(t, 1000, o.seqMaxN)
	assert.Equal(t, []int{1000}, o.sweepNs)

	o, err = parseFlags([]string{"-root", "../../..", "-n", "10000,1000,1000"})
	assert.NoError(t, err)
	assert.Equal(t, []int{1000, 10000}, o.sizes)
	assert.Equal(t, 10000, o.changedN)
	assert.Equal(t, 10000, o.seqMaxN, "the sequential baseline runs at every N by default")

	_, err = parseFlags([]string{"-root", "../../..", "-n", "x"})
	assert.Error(t, err)
}

func TestParseFlags_OnlyAndSkipSelectRowGroups(t *testing.T) {
	o, err := parseFlags([]string{"-root", "../../..", "-only", "quota"})
	assert.NoError(t, err)
	for _, g := range rowGroups {
		assert.Equal(t, g == "quota-create" || g == "quota-noop", o.runs(g), g)
	}
	assert.Equal(t, 10000, o.quotaNoopN)
	assert.Equal(t, 0.2, o.quotaScale)
	assert.Equal(t, 0.1, o.describeScale)
	assert.Empty(t, o.out, "a partial run does not overwrite docs/benchmarks.md by default")
	assert.False(t, o.micro, "nor runs the micro-benchmarks")
	o, err = parseFlags([]string{"-root", "../../..", "-only", "quota", "-out", "/tmp/q.md"})
	assert.NoError(t, err)
	assert.Equal(t, "/tmp/q.md", o.out)

	o, err = parseFlags([]string{"-root", "../../..", "-quick", "-only", "quota-noop,noop", "-skip", "noop"})
	assert.NoError(t, err)
	assert.True(t, o.runs("quota-noop"))
	assert.False(t, o.runs("noop"), "-skip wins over -only")
	assert.False(t, o.runs("create"))
	assert.Equal(t, 1000, o.quotaNoopN)

	o, err = parseFlags([]string{"-root", "../../..", "-skip", "changed,quota"})
	assert.NoError(t, err)
	assert.True(t, o.runs("create") && o.runs("noop") && o.runs("sweep"))
	assert.False(t, o.runs("changed") || o.runs("quota-create") || o.runs("quota-noop"))

	_, err = parseFlags([]string{"-root", "../../..", "-only", "quotas"})
	assert.ErrorContains(t, err, `unknown row group "quotas"`)
	_, err = parseFlags([]string{"-root", "../../..", "-quota-scale", "0"})
	assert.Error(t, err)
}

// The scale rows (about 25 minutes) run only when -only names them; their
// results go to their own block and JSON file.
func TestParseFlags_ScaleRowsOnlyOnRequest(t *testing.T) {
	o, err := parseFlags([]string{"-root", "../../.."})
	assert.NoError(t, err)
	assert.False(t, o.runs("scale"), "a full make bench does not run the scale rows")
	assert.True(t, o.runs("noop"))
	assert.Equal(t, "bench", o.section)
	assert.Equal(t, filepath.Join(o.root, "docs", "benchmarks", "bench.json"), o.jsonOut)

	o, err = parseFlags([]string{"-root", "../../..", "-only", "noop,sweep,scale", "-scale-n", "50000",
		"-section", "bench-scale", "-out", "docs/benchmarks.md"})
	assert.NoError(t, err)
	assert.True(t, o.runs("scale") && o.runs("noop") && o.runs("sweep"))
	assert.False(t, o.runs("create") || o.runs("changed"))
	assert.Equal(t, 50000, o.scaleN)
	assert.Equal(t, filepath.Join(o.root, "docs", "benchmarks", "bench-scale.json"), o.jsonOut)

	o, err = parseFlags([]string{"-root", "../../..", "-only", "noop"})
	assert.NoError(t, err)
	assert.Empty(t, o.jsonOut, "a partial run without -out writes no results file")

	_, err = parseFlags([]string{"-root", "../../..", "-section", "../x"})
	assert.Error(t, err)
}
