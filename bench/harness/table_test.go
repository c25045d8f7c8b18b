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
	r.CPU = secs(1.4)
	s := &Row{Scenario: Scenario{Kind: NoopSync, N: 10000, Concurrency: 1}, ConcurrencyLabel: "1", Bound: secs(212), Skipped: "N > -seq-max-n 1000"}
	out := Table([]Row{*r, *s})
	assert.Contains(t, out, "| no-op sync | 1000 | 8 (default) | 3.20 s | 1.50 s | 2.86 s | 1.12 | 1060 | List 10, Describe 1000, BatchGet 50 | 3 | 33 | 100 MiB | 1.40 s | 1.400 s | exit 0, converged |")
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

// Issue 24's scale targets: each passes on figures inside its limit and
// fails on the figure just outside it (ratio, RSS, calls, create time,
// growth), and none appears when the scale rows did not run.
func TestJudge_ScaleTargets(t *testing.T) {
	find := func(vs []Verdict, prefix string) Verdict {
		for _, v := range vs {
			if strings.HasPrefix(v.Target, prefix) {
				return v
			}
		}
		require.Failf(t, "no verdict", "no verdict %q in %+v", prefix, vs)
		return Verdict{}
	}
	noopCalls := Calls{"ListSecrets": 500, "DescribeSecret": 50000, "BatchGetSecretValue": 2500}
	ten := row(NoopSync, 10000, 28, secs(9.5), secs(7.58), Calls{"ListSecrets": 100, "DescribeSecret": 10000, "BatchGetSecretValue": 500})
	fifty := row(NoopSync, 50000, 28, secs(45), secs(37.9), noopCalls)
	fifty.MaxRSSKiB = 390 * 1024
	create := row(Create, 50000, 28, secs(1200), secs(1072), Calls{"CreateSecret": 50000})
	vs := Judge(Targets{NoopDefault: ten, ScaleNoop: fifty, ScaleCreate: create})
	for _, p := range []string{"(issue 24) no-op sync within 1.3×", "(issue 24) no-op sync at the scale N", "(issue 24) first sync creating", "(issue 24) cost growth"} {
		v := find(vs, p)
		assert.True(t, v.Known && v.Pass, "%s: %s", v.Target, v.Detail)
	}
	assert.Contains(t, find(vs, "(issue 24) no-op sync at the scale N").Detail, "1.060 per secret")

	slowTen := *ten
	slowTen.Wall = secs(9.9) // 1.31
	assert.False(t, find(Judge(Targets{NoopDefault: &slowTen}), "(issue 24) no-op sync within 1.3×").Pass)

	for name, mutate := range map[string]func(r *Row){
		"ratio": func(r *Row) { r.Wall = secs(57) },
		"rss":   func(r *Row) { r.MaxRSSKiB = 401 * 1024 },
		"calls": func(r *Row) { r.Delta.Calls = Calls{"DescribeSecret": 53001} },
	} {
		bad := *fifty
		mutate(&bad)
		v := find(Judge(Targets{ScaleNoop: &bad}), "(issue 24) no-op sync at the scale N")
		assert.True(t, v.Known && !v.Pass, "%s should fail: %s", name, v.Detail)
	}
	lateCreate := *create
	lateCreate.Wall = secs(1299) // limit 1.3 × 999 s = 1298.7 s
	assert.False(t, find(Judge(Targets{ScaleCreate: &lateCreate}), "(issue 24) first sync creating").Pass)
	grown := *fifty
	grown.Wall = secs(37.9 * 1.25 * 9.5 / 7.58 * 1.0) // ratio 1.25 × ten's 1.253 → +25 %
	v := find(Judge(Targets{NoopDefault: ten, ScaleNoop: &grown}), "(issue 24) cost growth")
	assert.True(t, v.Known && !v.Pass, v.Detail)
	assert.Len(t, Judge(Targets{}), 5, "issue 24's targets only appear when their rows ran")
}

// make bench-scale writes its own block; make bench's block is left as it is.
func TestSpliceSection_NamedBlocksAreIndependent(t *testing.T) {
	doc := Splice(nil, "main table")
	doc = SpliceSection(doc, "bench-scale", "scale v1")
	doc = SpliceSection(doc, "bench-scale", "scale v2")
	out := string(doc)
	assert.Contains(t, out, BeginMarker+"\nmain table\n"+EndMarker)
	b, e := Markers("bench-scale")
	assert.Contains(t, out, b+"\nscale v2\n"+e)
	assert.NotContains(t, out, "scale v1")
	assert.Equal(t, 1, strings.Count(out, b))
}

// TestRegionsRow: a run of several Regions has one Region's bound (the
// buckets apply in parallel), N creates per Region and one
// GetCallerIdentity in its expected calls, and is judged within 1.3× of
// that bound.
func TestRegionsRow(t *testing.T) {
	m := Model{Latency: 20 * time.Millisecond}
	one := Scenario{Kind: Create, N: 2000, Concurrency: 28}
	three := one
	three.Regions = 3
	b1, _ := m.LowerBound(one)
	b3, f3 := m.LowerBound(three)
	assert.Equal(t, b1, b3)
	assert.Contains(t, f3, "one Region's")
	assert.Equal(t, "first sync (create), 3 Regions in one run", three.Label())
	want := ExpectedCalls(one)
	got := ExpectedCalls(three)
	assert.Equal(t, int64(1), got["GetCallerIdentity"])
	assert.Equal(t, 3*want["CreateSecret"], got["CreateSecret"])
	assert.Equal(t, 3*want["DescribeSecret"], got["DescribeSecret"])

	r := row(Create, 2000, 28, secs(50), b3, Calls{"CreateSecret": 6000})
	r.Scenario.Regions = 3
	single := row(Create, 2000, 28, secs(46), b1, Calls{"CreateSecret": 2000})
	var v Verdict
	for _, x := range Judge(Targets{RegionsCreate: r, RegionsOne: single}) {
		if strings.HasPrefix(x.Target, "(issues 21, 24)") {
			v = x
		}
	}
	assert.True(t, v.Known && v.Pass, v.Detail)
	assert.Contains(t, v.Detail, "one Region in the same harness run: 46.0 s")
	late := *r
	late.Wall = time.Duration(1.31 * float64(b3))
	for _, x := range Judge(Targets{RegionsCreate: &late}) {
		if strings.HasPrefix(x.Target, "(issues 21, 24)") {
			assert.True(t, x.Known && !x.Pass, x.Detail)
		}
	}
}
