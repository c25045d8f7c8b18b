package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

func row(kind Kind, n, c int, wall, bound time.Duration, calls Calls) *Row {
	return &Row{Scenario: Scenario{Kind: kind, N: n, Concurrency: c}, Wall: wall, Bound: bound,
		Delta: Delta{Calls: calls}, ExitCode: 0, Status: "converged", MaxRSSKiB: 100 * 1024}
}

func TestJudge_PassAndFail(t *testing.T) {
	noop := Calls{"ListSecrets": 100, "DescribeSecret": 10000, "BatchGetSecretValue": 500}
	seq := row(NoopSync, 10000, 1, secs(212), secs(212), noop)
	fast := row(NoopSync, 10000, 8, secs(10), secs(8), noop)
	create := row(Create, 2000, 8, secs(45), secs(40), Calls{"CreateSecret": 2000})
	vs := Judge(Targets{NoopSeq: seq, NoopDefault: fast, NoopSyncs: []*Row{seq, fast}, CreateDefault: create, LargeRuns: []*Row{seq, fast}})
	for _, v := range vs {
		assert.True(t, v.Known && v.Pass, "%s: %s", v.Target, v.Detail)
	}

	slow := row(NoopSync, 10000, 8, secs(31), secs(20), Calls{"DescribeSecret": 20000, "PutSecretValue": 1})
	slow.MaxRSSKiB = 400 * 1024
	lateCreate := row(Create, 2000, 8, secs(53), secs(40), Calls{"CreateSecret": 2000})
	vs = Judge(Targets{NoopSeq: seq, NoopDefault: slow, NoopSyncs: []*Row{slow}, CreateDefault: lateCreate, LargeRuns: []*Row{slow}})
	for _, v := range vs {
		assert.True(t, v.Known && !v.Pass, "%s should fail: %s", v.Target, v.Detail)
	}

	vs = Judge(Targets{NoopSeq: &Row{Skipped: "too slow"}, NoopDefault: fast})
	assert.False(t, vs[0].Known, "a skipped baseline leaves the speed-up unknown")
	assert.Contains(t, VerdictTable(vs), "not measured")
}

// Issue 15's rows: creating 2,000 at 20 % passes within 1.3 × 199 s =
// 258.7 s with exit 0; the reduced no-op within 1.5× of its own bound.
func TestJudge_ReducedQuotaRows(t *testing.T) {
	fifth := emulator.Quotas{Quotas: true, QuotaScale: 0.2}
	tenth := emulator.Quotas{Quotas: true, QuotaScales: map[string]float64{"DescribeSecret": 0.1}}
	find := func(vs []Verdict, prefix string) Verdict {
		for _, v := range vs {
			if strings.HasPrefix(v.Target, prefix) {
				return v
			}
		}
		require.Failf(t, "no verdict", "no verdict %q in %+v", prefix, vs)
		return Verdict{}
	}
	create := row(Create, 2000, 28, secs(250), secs(209), Calls{"CreateSecret": 2100})
	create.Scenario.Quotas = fifth
	noop := row(NoopSync, 10000, 28, secs(12), secs(9.02), Calls{"DescribeSecret": 10000})
	noop.Scenario.Quotas = tenth
	vs := Judge(Targets{CreateReduced: create, NoopReduced: noop})
	c, n := find(vs, "(issue 15) creating"), find(vs, "(issue 15) no-op")
	assert.True(t, c.Known && c.Pass, c.Detail)
	assert.Contains(t, c.Detail, "r = 10/s: 250.0 s ≤ 1.3 × 199.0 s = 258.7 s ✓")
	assert.True(t, n.Known && n.Pass, n.Detail)

	late := *create
	late.Wall = secs(260)
	failed := *create
	failed.ExitCode, failed.Problems = 5, []string{"exit 5"}
	for _, r := range []*Row{&late, &failed} {
		v := find(Judge(Targets{CreateReduced: r}), "(issue 15) creating")
		assert.True(t, v.Known && !v.Pass, v.Detail)
	}
	assert.Len(t, Judge(Targets{}), 5, "the reduced-quota targets only appear when their rows ran")
}

func TestTable_RendersMeasuredAndSkippedRows(t *testing.T) {
	r := row(NoopSync, 1000, 8, secs(3.2), secs(2.86), Calls{"ListSecrets": 10, "DescribeSecret": 1000, "BatchGetSecretValue": 50})
	r.ConcurrencyLabel = "8 (default)"
	r.Delta.Throttled = Calls{"BatchGetSecretValue": 3}
	r.Delta.Connections = 33
	r.Phases = map[string]int64{DesiredLoadKey: 1500}
	s := &Row{Scenario: Scenario{Kind: NoopSync, N: 10000, Concurrency: 1}, ConcurrencyLabel: "1", Bound: secs(212), Skipped: "N > -seq-max-n 1000"}
	out := Table([]Row{*r, *s})
	assert.Contains(t, out, "| no-op sync | 1000 | 8 (default) | 3.20 s | 1.50 s | 2.86 s | 1.12 | 1060 | List 10, Describe 1000, BatchGet 50 | 3 | 33 | 100 MiB | exit 0, converged |")
	assert.Contains(t, out, "not run: N > -seq-max-n 1000")
	assert.Contains(t, out, "212.0 s")
}

func TestSplice_KeepsHandWrittenText(t *testing.T) {
	doc := []byte("# B\n\nintro\n\n" + BeginMarker + "\nold\n" + EndMarker + "\n\n## Analysis\nkept\n")
	out := string(Splice(doc, "new table\n"))
	assert.Contains(t, out, "intro")
	assert.Contains(t, out, "## Analysis\nkept")
	assert.Contains(t, out, BeginMarker+"\nnew table\n"+EndMarker)
	assert.NotContains(t, out, "old")

	fresh := string(Splice(nil, "t"))
	assert.Contains(t, fresh, "# Benchmarks")
	assert.Contains(t, fresh, BeginMarker+"\nt\n"+EndMarker)
}
