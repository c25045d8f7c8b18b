package harness

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run is a clean no-op sync of 10,000 with cpu CPU-seconds and rss MiB.
func cmpRun(cpu float64, rss int64) *Row {
	r := noopRow(10000, 10, cpu)
	r.MaxRSSKiB = rss * 1024
	return r
}

func TestRegressionCheck(t *testing.T) {
	base := Baseline{Rev: "fc5d8cf", Commit: "fc5d8cf12345", CLI: "/bin/baseline"}
	failed := cmpRun(4, 140)
	failed.Problems = []string{"exit 5"}
	for _, tc := range []struct {
		name  string
		ba    *BeforeAfter
		limit float64
		want  []string // "measure current baseline" of each regression
		row   string
	}{
		{name: "faster and smaller: none", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(8, 150), cmpRun(8.4, 152)}, After: []*Row{cmpRun(4, 120), cmpRun(4.2, 122)}}, limit: 0.10},
		{name: "within 10 %: none", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(8, 150)}, After: []*Row{cmpRun(8.79, 164)}}, limit: 0.10},
		{name: "exactly 10 % more: none (the limit is inclusive)", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(8, 100)}, After: []*Row{cmpRun(8.8, 110)}}, limit: 0.10},
		{name: "CPU 15 % more: the CPU fails", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(8, 150), cmpRun(8, 150)}, After: []*Row{cmpRun(9.2, 150), cmpRun(9.2, 150)}}, limit: 0.10,
			want: []string{"CPU s per 1,000"}, row: "no-op sync, N = 10000, default concurrency"},
		{name: "RSS 20 % more: the RSS fails", ba: &BeforeAfter{Baseline: base, N: 50000,
			Before: []*Row{cmpRun(8, 300)}, After: []*Row{cmpRun(8, 360)}}, limit: 0.10,
			want: []string{"peak RSS MiB"}, row: "no-op sync, N = 50000, default concurrency"},
		{name: "both worse: both fail", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(4, 100)}, After: []*Row{cmpRun(8, 200)}}, limit: 0.10,
			want: []string{"CPU s per 1,000", "peak RSS MiB"}, row: "no-op sync, N = 10000, default concurrency"},
		{name: "a failed run is left out of the mean", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(8, 150)}, After: []*Row{failed, cmpRun(8, 150)}}, limit: 0.10},
		{name: "no clean run of the current build: not measured, no regression", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(8, 150)}, After: []*Row{failed}}, limit: 0.10},
		{name: "baseline did not build: none", ba: &BeforeAfter{Baseline: Baseline{Rev: "x", Err: "boom"}}, limit: 0.10},
		{name: "skipped: none", ba: &BeforeAfter{Baseline: base, Skipped: "no corpus"}, limit: 0.10},
		{name: "no baseline asked for: none", ba: &BeforeAfter{}, limit: 0.10},
		{name: "a negative limit turns the check off", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(4, 100)}, After: []*Row{cmpRun(8, 200)}}, limit: -1},
		{name: "a limit of 50 % lets 40 % pass", ba: &BeforeAfter{Baseline: base, N: 10000,
			Before: []*Row{cmpRun(5, 100)}, After: []*Row{cmpRun(7, 140)}}, limit: 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RegressionCheck([]*BeforeAfter{tc.ba, nil}, tc.limit)
			var measures []string
			for _, r := range got {
				measures = append(measures, r.Measure)
				assert.Equal(t, tc.row, r.Row)
				assert.Contains(t, r.String(), tc.row, "the message names the row")
				assert.Greater(t, r.Current, r.Baseline*(1+tc.limit))
			}
			assert.Equal(t, tc.want, measures)
		})
	}
}

// The check is a verdict line of Judge over both comparisons, and a failed
// one names the row.
func TestJudge_RegressionVerdict(t *testing.T) {
	base := Baseline{Rev: "fc5d8cf", Commit: "fc5d8cf12345", CLI: "/bin/baseline"}
	find := func(vs []Verdict) *Verdict {
		for i := range vs {
			if strings.Contains(vs[i].Target, "above the baseline build") {
				return &vs[i]
			}
		}
		return nil
	}
	ok := &BeforeAfter{Baseline: base, N: 10000, Before: []*Row{cmpRun(8, 150)}, After: []*Row{cmpRun(4, 140)}}
	worse := &BeforeAfter{Baseline: base, N: 50000, Before: []*Row{cmpRun(40, 300)}, After: []*Row{cmpRun(40, 342)}}

	v := find(Judge(Targets{BeforeAfter: ok}))
	require.NotNil(t, v)
	assert.True(t, v.Known && v.Pass, v.Detail)

	v = find(Judge(Targets{BeforeAfter: ok, ScaleBeforeAfter: worse}))
	require.NotNil(t, v)
	assert.True(t, v.Known)
	assert.False(t, v.Pass)
	assert.Contains(t, v.Detail, "no-op sync, N = 50000, default concurrency: peak RSS MiB")

	assert.Nil(t, find(Judge(Targets{BeforeAfter: worse, MaxRegression: -1})), "off")
	assert.Nil(t, find(Judge(Targets{})), "nothing compared")
}
