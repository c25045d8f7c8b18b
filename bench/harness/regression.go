package harness

import (
	"fmt"
	"strings"
)

// DefaultRegressionLimit is the benchmark's own tolerance of a compared
// row against the baseline build of the same run: a mean CPU per 1,000
// secrets or a mean peak RSS more than 10 % above the baseline's fails the
// run (-max-regression).
const DefaultRegressionLimit = 0.10

// Regression is one measure of one compared row whose current mean is
// more than the limit above the baseline's mean (RegressionCheck).
type Regression struct {
	// Row names the compared row: "no-op sync, N = 10000, default
	// concurrency".
	Row string
	// Measure is "CPU s per 1,000" or "peak RSS MiB".
	Measure string
	// Baseline and Current are the two builds' means over their clean
	// runs; Limit is the fraction allowed above Baseline.
	Baseline, Current, Limit float64
}

func (r Regression) String() string {
	return fmt.Sprintf("%s: %s %.3f against %.3f for the baseline (%+.0f %%, limit +%.0f %%)",
		r.Row, r.Measure, r.Current, r.Baseline, 100*(r.Current/r.Baseline-1), 100*r.Limit)
}

// RowName is how a before/after comparison's row is named in tables,
// verdicts and the check's messages.
func (ba BeforeAfter) RowName() string {
	if ba.N == 0 {
		return "no-op sync, default concurrency"
	}
	return fmt.Sprintf("no-op sync, N = %d, default concurrency", ba.N)
}

// meanRSSMiB is the mean peak RSS in MiB over the rows that ran cleanly.
func meanRSSMiB(rows []*Row) (float64, int) {
	var sum float64
	var k int
	for _, r := range rows {
		if clean(r) && r.MaxRSSKiB > 0 {
			sum += float64(r.MaxRSSKiB) / 1024
			k++
		}
	}
	if k == 0 {
		return 0, 0
	}
	return sum / float64(k), k
}

// RegressionCheck is the benchmark's own check of the same-run
// comparisons (-baseline): for each compared row and each measure (CPU
// seconds per 1,000 secrets, peak RSS), the current build's mean over its
// clean runs against the baseline build's; a current mean above
// (1 + limit) × the baseline's is a regression. A comparison that was not
// run (no baseline asked for, a baseline that did not build, skipped) or a
// measure without a clean run on either side is no regression: the
// before/after table and the target line say "not measured". A limit < 0
// turns the check off. Pure: the caller fails the run on any result.
func RegressionCheck(comparisons []*BeforeAfter, limit float64) []Regression {
	if limit < 0 {
		return nil
	}
	var out []Regression
	for _, ba := range comparisons {
		if ba == nil || !ba.Asked() || ba.Baseline.Err != "" || ba.Skipped != "" {
			continue
		}
		for _, m := range []struct {
			name string
			mean func([]*Row) (float64, int)
		}{{"CPU s per 1,000", meanCPUPer1000}, {"peak RSS MiB", meanRSSMiB}} {
			before, nb := m.mean(ba.Before)
			after, na := m.mean(ba.After)
			if nb == 0 || na == 0 || before <= 0 {
				continue
			}
			if after > before*(1+limit) {
				out = append(out, Regression{Row: ba.RowName(), Measure: m.name, Baseline: before, Current: after, Limit: limit})
			}
		}
	}
	return out
}

// judgeRegressions is the verdict line of RegressionCheck: unknown
// without a comparison that ran, failed naming every regressed row and
// measure.
func judgeRegressions(comparisons []*BeforeAfter, limit float64) []Verdict {
	var ran []string
	for _, ba := range comparisons {
		if ba != nil && ba.Asked() && ba.Baseline.Err == "" && ba.Skipped == "" {
			ran = append(ran, ba.RowName())
		}
	}
	if limit < 0 || len(ran) == 0 {
		return nil
	}
	v := Verdict{Target: fmt.Sprintf("(issue 47) no compared row more than %.0f %% above the baseline build in CPU per 1,000 secrets or peak RSS, same run", 100*limit), Known: true}
	regs := RegressionCheck(comparisons, limit)
	if len(regs) == 0 {
		v.Pass = true
		v.Detail = "compared: " + strings.Join(ran, "; ")
		return []Verdict{v}
	}
	msgs := make([]string, len(regs))
	for i, r := range regs {
		msgs[i] = r.String()
	}
	v.Detail = strings.Join(msgs, "; ")
	return []Verdict{v}
}

// Comparisons are the same-run comparisons of t that were asked for.
func (t Targets) Comparisons() []*BeforeAfter {
	var out []*BeforeAfter
	for _, ba := range []*BeforeAfter{t.BeforeAfter, t.ScaleBeforeAfter} {
		if ba != nil && ba.Asked() {
			out = append(out, ba)
		}
	}
	return out
}

// RegressionLimit is t.MaxRegression with 0 read as the default.
func (t Targets) RegressionLimit() float64 {
	if t.MaxRegression == 0 {
		return DefaultRegressionLimit
	}
	return t.MaxRegression
}
