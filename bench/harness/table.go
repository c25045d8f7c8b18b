package harness

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Row is one measured run.
type Row struct {
	Scenario Scenario
	// ConcurrencyLabel is how the run was invoked, e.g. "1" or "8 (default)".
	ConcurrencyLabel string
	Wall             time.Duration
	Bound            time.Duration
	BoundFormula     string
	Delta            Delta
	MaxRSSKiB        int64
	// CPU is the CLI's user + system CPU time (Measurement.CPU).
	CPU      time.Duration
	ExitCode int
	Status   string // report status
	Counts   string // report counts, compact
	// Phases are the CLI's logged durations (LogDurations).
	Phases map[string]int64
	// Problems lists what went wrong (unexpected exit, writes in a no-op…).
	Problems []string
	// Notes compare the answered calls with ExpectedCalls.
	Notes []string
	// Skipped says why the run was not measured ("" = measured).
	Skipped string
	// Load is the machine's 1-minute load average as the run started
	// (LoadAvg; "" when not recorded); LoadAfter as it ended (the
	// many-accounts rows record it).
	Load, LoadAfter string
}

// DesiredLoadKey is the CLI log record (phase/msg) whose duration is the
// loading, decryption and validation of the desired state.
const DesiredLoadKey = "plan/desired state loaded"

// Decrypt is the logged desired-state load time (0 when not logged).
func (r Row) Decrypt() time.Duration {
	return time.Duration(r.Phases[DesiredLoadKey]) * time.Millisecond
}

// CPUPer1000 is the CLI's CPU seconds per 1,000 desired documents (0
// when unmeasured).
func (r Row) CPUPer1000() float64 {
	if r.CPU <= 0 || r.Scenario.N <= 0 {
		return 0
	}
	return r.CPU.Seconds() * 1000 / float64(r.Scenario.N)
}

// CallsPerSecret is the API calls of the run per desired document.
func (r Row) CallsPerSecret() float64 {
	if r.Scenario.N <= 0 {
		return 0
	}
	return float64(r.Delta.Calls.Total()) / float64(r.Scenario.N)
}

// Ratio is Wall / Bound (0 when unmeasured).
func (r Row) Ratio() float64 {
	if r.Bound <= 0 || r.Wall <= 0 {
		return 0
	}
	return r.Wall.Seconds() / r.Bound.Seconds()
}

// shortOps abbreviates operation names for the table.
var shortOps = map[string]string{
	"ListSecrets": "List", "DescribeSecret": "Describe", "BatchGetSecretValue": "BatchGet",
	"GetSecretValue": "Get", "CreateSecret": "Create", "PutSecretValue": "Put",
	"DeleteSecret": "Delete", "RestoreSecret": "Restore", "UpdateSecret": "Update",
}

// FormatCalls renders calls as "Describe 1000, List 10" in a fixed order.
func FormatCalls(c Calls) string {
	if len(c) == 0 {
		return "—"
	}
	order := []string{"ListSecrets", "DescribeSecret", "BatchGetSecretValue", "GetSecretValue", "CreateSecret", "PutSecretValue", "RestoreSecret", "DeleteSecret"}
	var parts []string
	seen := map[string]bool{}
	for _, op := range order {
		if c[op] != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", short(op), c[op]))
			seen[op] = true
		}
	}
	for _, op := range slices.Sorted(maps.Keys(c)) {
		if !seen[op] && c[op] != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", short(op), c[op]))
		}
	}
	return strings.Join(parts, ", ")
}

func short(op string) string {
	if s, ok := shortOps[op]; ok {
		return s
	}
	return op
}

// FormatDuration renders seconds with a precision fit for the magnitude.
func FormatDuration(d time.Duration) string {
	switch s := d.Seconds(); {
	case d <= 0:
		return "—"
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	default:
		return fmt.Sprintf("%.1f s", s)
	}
}

// Table renders rows as a Markdown table.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| scenario | N | --concurrency | wall | of which decrypt | lower bound | wall / bound | API calls | calls by operation | throttled | connections | peak RSS | CPU | CPU s per 1,000 | result |\n")
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		n := fmt.Sprint(r.Scenario.N)
		label := r.Scenario.Label()
		if r.Scenario.Kind == Changed {
			n = fmt.Sprintf("%d (M = %d)", r.Scenario.N, r.Scenario.M)
		}
		if r.Skipped != "" {
			fmt.Fprintf(&b, "| %s | %s | %s | — | — | %s | — | — | — | — | — | — | — | — | not run: %s |\n",
				label, n, r.ConcurrencyLabel, FormatDuration(r.Bound), r.Skipped)
			continue
		}
		result := fmt.Sprintf("exit %d, %s", r.ExitCode, r.Status)
		if r.Counts != "" {
			result += " (" + r.Counts + ")"
		}
		if len(r.Problems) > 0 {
			result += "; **" + strings.Join(r.Problems, "; ") + "**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.2f | %d | %s | %d | %d | %.0f MiB | %s | %s | %s |\n",
			label, n, r.ConcurrencyLabel, FormatDuration(r.Wall), FormatDuration(r.Decrypt()), FormatDuration(r.Bound), r.Ratio(),
			r.Delta.Calls.Total(), FormatCalls(r.Delta.Calls), r.Delta.Throttled.Total(), r.Delta.Connections, float64(r.MaxRSSKiB)/1024,
			FormatDuration(r.CPU), formatPer1000(r.CPUPer1000()), result)
	}
	return b.String()
}

func formatPer1000(s float64) string {
	if s <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f s", s)
}

// Verdict is the outcome of one target of docs/benchmarks.md (the base
// targets, the reduced-quota, scale and Regions rows' own).
type Verdict struct {
	Target string
	Pass   bool
	// Known is false when the runs needed were not measured.
	Known  bool
	Detail string
}

// Targets are the inputs of Judge: which rows answer which target.
type Targets struct {
	NoopSeq, NoopDefault *Row   // no-op sync at the large N, --concurrency 1 and default
	NoopSyncs            []*Row // every measured no-op sync (call ceiling)
	CreateDefault        *Row   // first sync creating the create-N at default concurrency
	LargeRuns            []*Row // runs at the large N (RSS)
	// CreateReduced is the first sync creating the create-N under reduced
	// quotas, NoopReduced the no-op sync with the DescribeSecret quota
	// reduced; nil when not run.
	CreateReduced, NoopReduced *Row
	// ScaleNoop is the no-op sync and ScaleCreate the first sync creating
	// every secret at the scale N (row group scale, default
	// concurrency); nil when not run.
	ScaleNoop, ScaleCreate *Row
	// RegionsCreate is the first sync creating the create-N in several
	// Regions in one run (row group regions), RegionsOne the
	// same in one Region, measured beside it; nil when not run.
	RegionsCreate, RegionsOne *Row
	// BeforeAfter is the no-op sync of a baseline build beside the
	// current one in the same run (-baseline); nil when none was asked
	// for.
	BeforeAfter *BeforeAfter
	// ScaleBeforeAfter is the same comparison at the scale N (row group
	// scale with -baseline); nil when not run.
	ScaleBeforeAfter *BeforeAfter
	// MaxRegression is RegressionCheck's limit over both comparisons (0 =
	// DefaultRegressionLimit, < 0 = no check).
	MaxRegression float64
	// PS are the Parameter Store rows (row group ps), each judged on its
	// own bound; empty when not run.
	PS []*Row
}

// The scale rows' limits.
const (
	// ScaleRSSLimitKiB is the peak RSS allowed at the scale N (400 MiB).
	ScaleRSSLimitKiB = 400 * 1024
	// ScaleCallsPerSecret is the most API calls per secret of a no-op
	// sync at the scale N.
	ScaleCallsPerSecret = 1.06
	// GrowthTolerance is how much wall/bound may grow from the large N
	// of -n to the scale N (20 %).
	GrowthTolerance = 0.20
)

// Judge evaluates the base targets, and the reduced-quota, scale and
// Regions targets when those rows ran, on the measured rows.
func Judge(t Targets) []Verdict {
	var out []Verdict
	measured := func(r *Row) bool { return r != nil && r.Skipped == "" }

	v := Verdict{Target: "no-op sync ≥ 20× faster than --concurrency 1"}
	if measured(t.NoopSeq) && measured(t.NoopDefault) {
		sp := t.NoopSeq.Wall.Seconds() / t.NoopDefault.Wall.Seconds()
		v.Known, v.Pass = true, sp >= 20
		v.Detail = fmt.Sprintf("N = %d: %s vs %s = %.1f×", t.NoopDefault.Scenario.N, FormatDuration(t.NoopSeq.Wall), FormatDuration(t.NoopDefault.Wall), sp)
	}
	out = append(out, v)

	v = Verdict{Target: "no-op sync within 1.5× of the lower bound (default concurrency)"}
	if measured(t.NoopDefault) {
		v.Known, v.Pass = true, t.NoopDefault.Ratio() <= 1.5 && len(t.NoopDefault.Problems) == 0
		v.Detail = fmt.Sprintf("N = %d: %s / %s = %.2f", t.NoopDefault.Scenario.N, FormatDuration(t.NoopDefault.Wall), FormatDuration(t.NoopDefault.Bound), t.NoopDefault.Ratio())
	}
	out = append(out, v)

	v = Verdict{Target: "no-op sync makes ≤ N/100 + N/20 + N + 5 calls, no verification pass"}
	var details []string
	v.Pass = true
	for _, r := range t.NoopSyncs {
		if !measured(r) {
			continue
		}
		v.Known = true
		limit := NoopCallLimit(r.Scenario.N)
		ok := r.Delta.Calls.Total() <= limit && r.Delta.Calls.Mutations() == 0
		v.Pass = v.Pass && ok
		details = append(details, fmt.Sprintf("N = %d, C = %s: %d ≤ %d %s", r.Scenario.N, r.ConcurrencyLabel, r.Delta.Calls.Total(), limit, mark(ok)))
	}
	v.Detail = strings.Join(details, "; ")
	out = append(out, v)

	v = Verdict{Target: "creating N under the 50/s create quota within 1.3 × N/50 s, no failed operation"}
	if r := t.CreateDefault; measured(r) {
		limit := time.Duration(1.3 * float64(r.Scenario.N) / QuotaCreate * float64(time.Second))
		ok := r.Wall <= limit && r.ExitCode == 0 && len(r.Problems) == 0
		v.Known, v.Pass = true, ok
		v.Detail = fmt.Sprintf("N = %d: %s ≤ %s %s, exit %d, %s", r.Scenario.N, FormatDuration(r.Wall), FormatDuration(limit), mark(r.Wall <= limit), r.ExitCode, r.Status)
	}
	out = append(out, v)

	if r := t.RegionsCreate; r != nil {
		v = Verdict{Target: "(issues 21, 24) creating N in each of several Regions in one run within 1.3× of one Region's lower bound, no failed operation"}
		if measured(r) {
			limit := time.Duration(1.3 * float64(r.Bound))
			ok := r.Wall <= limit && r.ExitCode == 0 && len(r.Problems) == 0
			v.Known, v.Pass = true, ok
			v.Detail = fmt.Sprintf("%s, N = %d per Region: %s ≤ 1.3 × %s = %s %s, exit %d, %s", r.Scenario.Label(), r.Scenario.N,
				FormatDuration(r.Wall), FormatDuration(r.Bound), FormatDuration(limit), mark(r.Wall <= limit), r.ExitCode, r.Status)
			if one := t.RegionsOne; measured(one) {
				v.Detail += fmt.Sprintf("; one Region in the same harness run: %s (%.2f× of it)", FormatDuration(one.Wall), r.Wall.Seconds()/one.Wall.Seconds())
			}
		}
		out = append(out, v)
	}
	if r := t.CreateReduced; r != nil {
		v = Verdict{Target: "(issue 15) creating N under reduced quotas within 1.3 × (N − r)/r s at the scaled create rate r, no failed operation"}
		if measured(r) {
			m := Model{Quotas: r.Scenario.Quotas}
			bound := m.CreateQuotaWait(r.Scenario.N)
			limit := time.Duration(1.3 * float64(bound))
			ok := r.Wall <= limit && r.ExitCode == 0 && len(r.Problems) == 0
			v.Known, v.Pass = true, ok
			v.Detail = fmt.Sprintf("%s, N = %d, r = %g/s: %s ≤ 1.3 × %s = %s %s, exit %d, %s", r.Scenario.Label(), r.Scenario.N, m.CreateRate(),
				FormatDuration(r.Wall), FormatDuration(bound), FormatDuration(limit), mark(r.Wall <= limit), r.ExitCode, r.Status)
		}
		out = append(out, v)
	}
	if r := t.NoopReduced; r != nil {
		// The row has no target of its own: the base no-op target at
		// the reduced quota's bound.
		v = Verdict{Target: "(issue 15) no-op sync under a reduced DescribeSecret quota within 1.5× of its lower bound, no mutating call"}
		if measured(r) {
			ok := r.Ratio() <= 1.5 && r.ExitCode == 0 && len(r.Problems) == 0 && r.Delta.Calls.Mutations() == 0
			v.Known, v.Pass = true, ok
			v.Detail = fmt.Sprintf("%s, N = %d: %s / %s = %.2f, exit %d, %s", r.Scenario.Label(), r.Scenario.N,
				FormatDuration(r.Wall), FormatDuration(r.Bound), r.Ratio(), r.ExitCode, r.Status)
		}
		out = append(out, v)
	}

	out = append(out, judgeScale(t)...)
	out = append(out, judgeBeforeAfter(t.BeforeAfter)...)
	out = append(out, judgeBeforeAfter(t.ScaleBeforeAfter)...)
	out = append(out, judgeRegressions(t.Comparisons(), t.RegressionLimit())...)

	v = Verdict{Target: "peak RSS < 300 MiB at the large N × 1 KiB"}
	var peak int64
	var peakN int
	for _, r := range t.LargeRuns {
		if measured(r) && r.MaxRSSKiB > peak {
			peak, peakN = r.MaxRSSKiB, r.Scenario.N
		}
	}
	if peak > 0 {
		v.Known, v.Pass = true, peak < 300*1024
		v.Detail = fmt.Sprintf("largest peak over the N = %d runs: %.0f MiB", peakN, float64(peak)/1024)
	}
	out = append(out, v)
	return append(out, judgePS(t.PS)...)
}

// judgeScale evaluates the scale rows' targets: the no-op sync at the large N
// of -n within 1.3× of its bound; at the scale N the no-op within 1.5× of
// its bound, peak RSS ≤ 400 MiB and ≤ 1.06 calls per secret; the first
// sync creating every secret within 1.3× of its quota bound, the
// CreateSecret quota alone ((N − r)/r s, as the reduced-quota target
// states it); and
// wall/bound at the scale N within 20 % of that at the large N.
func judgeScale(t Targets) []Verdict {
	measured := func(r *Row) bool { return r != nil && r.Skipped == "" }
	var out []Verdict
	if r := t.NoopDefault; measured(r) {
		ok := r.Ratio() <= 1.3 && len(r.Problems) == 0
		out = append(out, Verdict{Target: "(issue 24) no-op sync within 1.3× of the lower bound (default concurrency)", Known: true, Pass: ok,
			Detail: fmt.Sprintf("N = %d: %s / %s = %.2f", r.Scenario.N, FormatDuration(r.Wall), FormatDuration(r.Bound), r.Ratio())})
	}
	if t.ScaleNoop == nil && t.ScaleCreate == nil {
		return out
	}
	v := Verdict{Target: "(issue 24) no-op sync at the scale N within 1.5× of its bound, peak RSS ≤ 400 MiB, ≤ 1.06 calls per secret"}
	if r := t.ScaleNoop; measured(r) {
		okRatio, okRSS, okCalls := r.Ratio() <= 1.5, r.MaxRSSKiB <= ScaleRSSLimitKiB, r.CallsPerSecret() <= ScaleCallsPerSecret
		v.Known, v.Pass = true, okRatio && okRSS && okCalls && len(r.Problems) == 0
		v.Detail = fmt.Sprintf("N = %d: %s / %s = %.2f %s; peak RSS %.0f MiB %s; %d calls = %.3f per secret %s",
			r.Scenario.N, FormatDuration(r.Wall), FormatDuration(r.Bound), r.Ratio(), mark(okRatio),
			float64(r.MaxRSSKiB)/1024, mark(okRSS), r.Delta.Calls.Total(), r.CallsPerSecret(), mark(okCalls))
	}
	out = append(out, v)
	v = Verdict{Target: "(issue 24) first sync creating the scale N within 1.3× of its quota bound (N − 50)/50 s, no failed operation"}
	if r := t.ScaleCreate; measured(r) {
		bound := Model{}.CreateQuotaWait(r.Scenario.N)
		limit := time.Duration(1.3 * float64(bound))
		ok := r.Wall <= limit && r.ExitCode == 0 && len(r.Problems) == 0
		v.Known, v.Pass = true, ok
		v.Detail = fmt.Sprintf("N = %d: %s ≤ 1.3 × %s = %s %s (%.2f × the full bound %s), exit %d, %s", r.Scenario.N,
			FormatDuration(r.Wall), FormatDuration(bound), FormatDuration(limit), mark(r.Wall <= limit), r.Ratio(), FormatDuration(r.Bound), r.ExitCode, r.Status)
	}
	out = append(out, v)
	v = Verdict{Target: "(issue 24) cost growth: no-op sync wall/bound at the scale N within 20 % of that at the large N of -n"}
	if a, b := t.NoopDefault, t.ScaleNoop; measured(a) && measured(b) && a.Ratio() > 0 {
		g := b.Ratio()/a.Ratio() - 1
		v.Known, v.Pass = true, g <= GrowthTolerance
		v.Detail = fmt.Sprintf("N = %d: %.2f; N = %d: %.2f; growth %+.0f %%", a.Scenario.N, a.Ratio(), b.Scenario.N, b.Ratio(), 100*g)
	}
	out = append(out, v)
	return out
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// VerdictTable renders verdicts as Markdown.
func VerdictTable(vs []Verdict) string {
	var b strings.Builder
	b.WriteString("| target | result | measured |\n|---|---|---|\n")
	for _, v := range vs {
		res := "not measured"
		if v.Known {
			res = "**FAIL**"
			if v.Pass {
				res = "pass"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", v.Target, res, v.Detail)
	}
	return b.String()
}
