package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

type microResult struct {
	Pkg    string
	Output string // the benchmark lines, or why there are none
}

// runMicro runs the Go benchmarks of the packages that have them: the
// desired-state decryption (internal/desired) and the emulator's per-call
// overhead (internal/emulator) and the engine's own (internal/engine).
func runMicro(ctx context.Context, root string) []microResult {
	var out []microResult
	for _, pkg := range []string{"./internal/desired", "./internal/emulator", "./internal/engine"} {
		if !hasBenchmarks(filepath.Join(root, pkg)) {
			out = append(out, microResult{Pkg: pkg, Output: "(no Go benchmark in this package yet)"})
			continue
		}
		logf("go test -bench %s", pkg)
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1", pkg)
		cmd.Dir = root
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		var lines []string
		sc := bufio.NewScanner(&b)
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, "Benchmark") || strings.HasPrefix(l, "cpu:") || strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "---") {
				lines = append(lines, l)
			}
		}
		if err != nil {
			lines = append(lines, "go test failed: "+err.Error())
		}
		out = append(out, microResult{Pkg: pkg, Output: strings.Join(lines, "\n")})
	}
	return out
}

func hasBenchmarks(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte("func Benchmark")) {
			return true
		}
	}
	return false
}

func render(e *env, rows []*harness.Row, verdicts []harness.Verdict, micro []microResult, took time.Duration) string {
	o := e.o
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if o.section == "bench" {
		w("## Latest run\n\n")
	} else {
		w("## Latest run of `make %s`\n\n", o.section)
	}
	w("- Date: %s (the harness ran for %s).\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), took.Round(time.Second))
	w("- Machine: %s; load average (1 min) %s at the start, %s at the end — other processes on the machine share its CPUs.\n", harness.Machine(), e.loadStart, harness.LoadAvg())
	w("- Tree: %s.\n", harness.TreeState(e.o.root))
	w("- CPU is the CLI's own user + system time (every thread; wait4's rusage), also per 1,000 desired documents.\n")
	w("- Command: `go run ./bench/cmd/bench %s` (`make bench` passes its variables as these flags).\n", strings.Join(os.Args[1:], " "))
	if accountsOnly(rows) {
		renderAccounts(w, e, rows, verdicts)
		return b.String()
	}
	psOnly := len(rows) > 0 && !slices.ContainsFunc(rows, func(r *harness.Row) bool { return !r.Scenario.Kind.ParameterStore() })
	if psOnly {
		renderPSHead(w, o)
		var ps []harness.Verdict
		for _, v := range verdicts {
			if strings.Contains(v.Target, "Parameter Store") {
				ps = append(ps, v)
			}
		}
		w("### Targets (Parameter Store rows)\n\n%s\n", harness.VerdictTable(ps))
		if o.jsonOut != "" {
			w("The figures of this run are in `%s`.\n\n", relTo(o.root, o.jsonOut))
		}
		var all []harness.Row
		for _, r := range rows {
			all = append(all, *r)
		}
		w("### Runs\n\n%s\n", harness.Table(all))
		w("Lower bounds (L = %v per call, C = --concurrency; decryption and process start-up excluded; the formulas are derived above, \"Parameter Store rows\"): ", o.latency)
		w("obs₂(N) = max(2P·L, steady(2P, Qd), ⌈G/C⌉·L, steady(G, Qg)) for a no-op sync, 3·L + put(N) + obs₁(N) for a first sync, with P = ⌈N/50⌉, G = ⌈N/10⌉ and steady(k, Q) = (k − 1)/Q + L.\n\n")
		renderDetails(w, rows)
		return b.String()
	}
	w("- Conditions: emulator binary with %v latency per call and AWS request quotas on (BatchGetSecretValue and ListSecrets 100/s, CreateSecret and PutSecretValue 50/s, DescribeSecret+GetSecretValue 10,000/s; buckets start full with one second's worth); ", o.latency)
	w("values of about %d bytes (canonical JSON), one age-encrypted SOPS JSON document per secret, all in one commit.\n", o.valueBytes)
	w("- Reduced-quota rows (issue 15, row groups quota-create and quota-noop): the same conditions with the named quotas scaled (every one by -quota-scale %g, or only DescribeSecret + GetSecretValue by -describe-quota-scale %g), as another client sharing the account's quota would leave them; their bounds use the scaled rates.\n", o.quotaScale, o.describeScale)
	w("- Each run: `sops-aws-sync {plan|sync} --repository R --revision SHA --repository-id bench/repo --source-root nN --secret-prefix bench/nN --aws-region us-east-1 --report-file F --log-format json --run-timeout 60m --verification-timeout 30m [--concurrency C]` with `SOPS_AGE_KEY_FILE` and `AWS_ENDPOINT_URL_SECRETS_MANAGER` set; calls are the emulator's `/_emulator/stats` difference around the run (throttled attempts and SDK retries included); peak RSS is the child's own `VmHWM` sampled every 50 ms (not `ru_maxrss`, which includes the harness's RSS; see Method).\n\n")

	w("### Targets (issue 7; issue 15 for the reduced-quota rows; issue 24 for the scale rows)\n\n%s\n", harness.VerdictTable(verdicts))
	if o.jsonOut != "" {
		w("The figures of this run are in `%s` and drawn by `go run ./bench/cmd/benchplot` (see the figures in this file).\n\n", relTo(o.root, o.jsonOut))
	}

	for _, ba := range []harness.BeforeAfter{e.ba, e.baScale} {
		if !ba.Asked() {
			continue
		}
		w("### Before and after, same run (%s)\n\n", ba.RowName())
		switch {
		case ba.Baseline.Err != "":
			w("Not measured: %s (`-baseline %s`) did not build: %s\n\n", ba.Baseline.Label(), ba.Baseline.Rev, ba.Baseline.Err)
		case ba.Skipped != "":
			w("Not measured: %s\n\n", ba.Skipped)
		default:
			w("The CLI built at `%s` (`git archive` of that commit, the same build flags) and the current build, run alternately (%d pairs) over the same corpus, emulator and conditions: no-op sync, N = %d, default concurrency. CPU is each run's own user + system time; the target line above takes the means of the clean runs.\n\n%s\n",
				ba.Baseline.Commit, e.o.baselinePairs, ba.N, harness.BeforeAfterTable(ba))
		}
	}

	var all []harness.Row
	for _, r := range rows {
		all = append(all, *r)
	}
	w("### Runs\n\n%s\n", harness.Table(all))
	w("Lower bounds (L = %v per call, C = --concurrency; decryption and process start-up excluded):\n\n", o.latency)
	w("- obs(N) = max(P·L, ⌈(N + B + P)/C⌉·L, (B − 100)/100 s + L) with P = ⌈N/100⌉ list pages (one after another) and B = ⌈N/20⌉ batched value reads (under the 100/s quota), all sharing the C slots with the N describes;\n")
	w("- obs₀(N) is the first observation of an empty scope: max(L, ⌈(N + 1)/C⌉·L);\n")
	w("- upd(M) = max(⌈M/C⌉·3L, (M − 50)/50 s): each update re-observes its target (DescribeSecret + GetSecretValue) then PutSecretValue, under the 50/s quota;\n")
	w("- cre(N) = max(⌈N/C⌉·2L, (N − 50)/50 s): DescribeSecret + CreateSecret per secret, under the 50/s quota;\n")
	w("- under reduced quotas every rate r above is the scaled one, and obs(N) also has the term (N − r)/r s + L of the N describes under the DescribeSecret + GetSecretValue quota (r = 10,000/s unscaled, so it binds only when that quota is reduced).\n\n")

	for _, n := range o.sweepNs {
		var sweep []harness.Row
		for _, r := range all {
			if r.Scenario.Kind == harness.NoopSync && r.Scenario.N == n && r.Skipped == "" && !r.Scenario.Reduced() {
				sweep = append(sweep, r)
			}
		}
		if len(sweep) == 0 {
			continue
		}
		slices.SortFunc(sweep, func(a, b harness.Row) int { return a.Scenario.Concurrency - b.Scenario.Concurrency })
		w("### Concurrency sweep (no-op sync, N = %d)\n\n", n)
		w("| --concurrency | wall | of which decrypt | lower bound | wall / bound | speed-up vs 1 | calls | throttled | connections | peak RSS |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		var seq time.Duration
		if sweep[0].Scenario.Concurrency == 1 {
			seq = sweep[0].Wall
		}
		for _, r := range sweep {
			sp := "—"
			if seq > 0 {
				sp = fmt.Sprintf("%.1f×", seq.Seconds()/r.Wall.Seconds())
			}
			w("| %s | %s | %s | %s | %.2f | %s | %d | %d | %d | %.0f MiB |\n", r.ConcurrencyLabel, harness.FormatDuration(r.Wall), harness.FormatDuration(r.Decrypt()),
				harness.FormatDuration(r.Bound), r.Ratio(), sp, r.Delta.Calls.Total(), r.Delta.Throttled.Total(), r.Delta.Connections, float64(r.MaxRSSKiB)/1024)
		}
		w("\n")
	}

	renderDetails(w, rows)
	if len(micro) > 0 {
		w("### Go micro-benchmarks\n\n")
		for _, m := range micro {
			w("`go test -run '^$' -bench . -benchmem %s`:\n\n```\n%s\n```\n\n", m.Pkg, m.Output)
		}
	}
	return b.String()
}

// renderPSHead is the conditions of a run of the Parameter Store rows alone.
func renderPSHead(w func(string, ...any), o options) {
	w("- Conditions: emulator binary with %v latency per call and its Parameter Store quotas on (PutParameter %g/s; GetParameter, GetParameters and GetParametersByPath %g/s together; DescribeParameters %g/s [unverified]), the tool's pace ceilings the same; ",
		o.latency, emulator.QuotaRate("PutParameter"), emulator.QuotaRate("GetParameters"), emulator.QuotaRate("DescribeParameters"))
	w("values of about %d bytes (canonical JSON), one age-encrypted SOPS JSON document per parameter, all in one commit; the no-op rows' parameters seeded directly (faults off), the first sync's prefix empty.\n", o.valueBytes)
	w("- Each run: `sops-aws-sync sync --target parameter-store --repository R --revision SHA --repository-id bench/repo --source-root psN --secret-prefix bench/psN --aws-region us-east-1 --report-file F --log-format json --run-timeout 60m --verification-timeout 30m` with `SOPS_AGE_KEY_FILE` and `AWS_ENDPOINT_URL_SSM` set, default concurrency; calls are the emulator's `/_emulator/stats` difference around the run; peak RSS is the child's own `VmHWM` sampled every 50 ms.\n\n")
}

// renderDetails is the section "Per-run details".
func renderDetails(w func(string, ...any), rows []*harness.Row) {
	w("### Per-run details\n\nAnswered calls (throttled attempts removed) compared with the documented algorithm, and the durations the CLI logged (`phase/msg`: ms).\n\n")
	for _, r := range rows {
		if r.Skipped != "" {
			continue
		}
		w("- %s, N = %d, --concurrency %s:", r.Scenario.Label(), r.Scenario.N, r.ConcurrencyLabel)
		if len(r.Notes) == 0 {
			w(" calls exactly as documented;")
		} else {
			w(" %s;", strings.Join(r.Notes, "; "))
		}
		if len(r.Delta.Throttled) > 0 {
			w(" throttled: %s;", harness.FormatCalls(r.Delta.Throttled))
		}
		var ph []string
		for _, k := range slices.Sorted(maps.Keys(r.Phases)) {
			ph = append(ph, fmt.Sprintf("%s: %d", k, r.Phases[k]))
		}
		if len(ph) > 0 {
			w(" logged %s", strings.Join(ph, ", "))
		}
		w("\n")
	}
	w("\n")
}

// relTo is path relative to root when it is inside it.
func relTo(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}
