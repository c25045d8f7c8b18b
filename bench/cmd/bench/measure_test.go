package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

func TestParseFlags_Baseline(t *testing.T) {
	o, err := parseFlags([]string{"-root", "../../.."})
	assert.NoError(t, err)
	assert.Empty(t, o.baseline, "no before/after rows unless asked for")
	assert.Equal(t, 2, o.baselinePairs)

	o, err = parseFlags([]string{"-root", "../../..", "-quick", "-only", "noop", "-n", "200", "-baseline", "4886998", "-baseline-pairs", "1"})
	assert.NoError(t, err)
	assert.Equal(t, "4886998", o.baseline)
	assert.Equal(t, 1, o.baselinePairs)

	for _, bad := range [][]string{{"-baseline", "--upload-pack=x"}, {"-baseline", "a b"}, {"-baseline-pairs", "0"}, {"-baseline-pairs", "6"}} {
		_, err = parseFlags(append([]string{"-root", "../../.."}, bad...))
		assert.Error(t, err, "%v", bad)
	}
}

// The before/after runs go to their own list of the JSON results, each
// named by its binary, in the order run; the rows the figures draw hold
// only the current build's usual runs.
func TestResults_BeforeAfterKeptOutOfTheDrawnRows(t *testing.T) {
	mk := func(cpu float64) *harness.Row {
		return &harness.Row{Scenario: harness.Scenario{Kind: harness.NoopSync, N: 10000, Concurrency: 28}, ConcurrencyLabel: defaultLabel(),
			Wall: 10 * time.Second, Bound: 7580 * time.Millisecond, CPU: time.Duration(cpu * float64(time.Second)), Status: "converged"}
	}
	e := &env{o: options{section: "bench-scale", root: "../../.."}}
	e.ba = harness.BeforeAfter{Baseline: harness.Baseline{Rev: "4886998", Commit: "4886998abcde", CLI: "/x"}, N: 10000,
		Before: []*harness.Row{mk(11), mk(12)}, After: []*harness.Row{mk(8), mk(9)}}
	usual := mk(8.5)
	res := e.results([]*harness.Row{usual}, nil, time.Now())
	require.Len(t, res.Rows, 1)
	assert.Empty(t, res.Rows[0].Binary)
	assert.Equal(t, "baseline 4886998", res.Baseline)
	var order []string
	for _, r := range res.BeforeAfter {
		order = append(order, fmt.Sprintf("%s %.1f", r.Binary, r.CPUPer1000))
	}
	assert.Equal(t, []string{"baseline 1.1", "current 0.8", "baseline 1.2", "current 0.9"}, order)

	p := filepath.Join(t.TempDir(), "bench-scale.json")
	require.NoError(t, harness.WriteResults(p, res))
	back, err := harness.ReadResults(p)
	require.NoError(t, err)
	assert.Equal(t, res.BeforeAfter, back.BeforeAfter)

	e.ba = harness.BeforeAfter{Baseline: harness.Baseline{Rev: "abc", Err: "go build: boom"}}
	res = e.results(nil, nil, time.Now())
	assert.Equal(t, "baseline abc: not built: go build: boom", res.Baseline)
	assert.Empty(t, res.BeforeAfter)
}
