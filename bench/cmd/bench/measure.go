package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// measure runs the CLI once for kind over corpus c at conc (0 = the CLI's
// default, no flag passed) under quotas q (off: AWS's quotas) and checks
// that it did what the scenario means.
func (e *env) measure(ctx context.Context, kind harness.Kind, c harness.Corpus, conc int, q emulator.Quotas) (*harness.Row, error) {
	return e.measureIn(ctx, kind, c, conc, q, 0)
}

// benchRegions are the Regions of a run of several (measureIn), in order.
var benchRegions = []string{"us-east-1", "eu-west-1", "ap-southeast-2", "us-west-2", "eu-central-1", "ap-northeast-1", "sa-east-1", "ca-central-1"}

// measureIn is measure with the scenario done in regions Regions by one run
// (regions > 1: a --config file with one scope per Region over c's source
// root and prefix, SPEC §10; each Region is its own quota bucket).
func (e *env) measureIn(ctx context.Context, kind harness.Kind, c harness.Corpus, conc int, q emulator.Quotas, regions int) (*harness.Row, error) {
	return e.measureBin(ctx, e.bins.CLI, "", kind, c, conc, q, regions)
}

// measureBin is measureIn with the CLI binary bin, named who in the log
// ("" for the current build).
func (e *env) measureBin(ctx context.Context, bin, who string, kind harness.Kind, c harness.Corpus, conc int, q emulator.Quotas, regions int) (*harness.Row, error) {
	sc := harness.Scenario{Kind: kind, N: len(c.Docs), Concurrency: conc, Quotas: q, Regions: regions}
	label := strconv.Itoa(conc)
	if conc == 0 {
		sc.Concurrency = config.DefaultConcurrency
		label = defaultLabel()
		if e.o.asDefault > 0 {
			sc.Concurrency = e.o.asDefault
			label = fmt.Sprintf("%d (candidate default)", e.o.asDefault)
		}
	}
	if kind == harness.Changed {
		sc.M = len(harness.EveryTenth(sc.N))
	}
	row := &harness.Row{Scenario: sc, ConcurrencyLabel: label}
	row.Bound, row.BoundFormula = e.model.LowerBound(sc)
	if conc == 1 && sc.N > e.o.seqMaxN {
		row.Skipped = fmt.Sprintf("N > -seq-max-n %d (lower bound %s)", e.o.seqMaxN, harness.FormatDuration(row.Bound))
		logf("%s N=%d --concurrency 1: skipped (-seq-max-n)", sc.Label(), sc.N)
		return row, nil
	}
	mode := "sync"
	if kind == harness.NoopPlan {
		mode = "plan"
	}
	e.runs++
	reportFile := filepath.Join(e.reports, fmt.Sprintf("run-%03d.json", e.runs))
	scope := []string{"--repository-id", c.Scope.RepositoryID, "--source-root", c.Scope.SourceRoot,
		"--secret-prefix", c.Scope.Prefix, "--aws-region", "us-east-1"}
	if sc.PerRun() > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "repository-id: %s\nscopes:\n", c.Scope.RepositoryID)
		for i := range sc.PerRun() {
			fmt.Fprintf(&b, "  - name: r%d\n    source-root: %s\n    secret-prefix: %s\n    aws-region: %s\n",
				i+1, c.Scope.SourceRoot, c.Scope.Prefix, benchRegions[i])
		}
		cfg := filepath.Join(e.reports, fmt.Sprintf("run-%03d.yaml", e.runs))
		if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
			return nil, err
		}
		scope = []string{"--config", cfg}
	}
	if kind.ParameterStore() {
		scope = append(scope, "--target", "parameter-store")
	}
	args := append(append([]string{mode, "--repository", e.repo.Dir, "--revision", e.repo.Commit}, scope...),
		"--report-file", reportFile, "--log-format", "json", "--run-timeout", "60m",
		// One re-observation of 10,000 secrets at --concurrency 1 takes
		// about 4 minutes, beyond the default 2m verification timeout: a
		// sequential 10 %-changed sync would end verification-inconclusive
		// (exit 6) by configuration, not by any fault.
		"--verification-timeout", "30m",
	)
	if conc != 0 || e.o.asDefault > 0 {
		args = append(args, "--concurrency", strconv.Itoa(sc.Concurrency))
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "TMPDIR=" + os.TempDir(),
		"SOPS_AGE_KEY_FILE=" + e.keyFile,
		"AWS_ACCESS_KEY_ID=AKIDBENCH", "AWS_SECRET_ACCESS_KEY=bench-secret",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + e.emuURL, "AWS_ENDPOINT_URL_STS=" + e.emuURL, "AWS_ENDPOINT_URL_SSM=" + e.emuURL,
		"AWS_EC2_METADATA_DISABLED=true",
	}
	env = append(env, e.o.cliEnv...)
	if waited := harness.WaitQuiet(15*time.Second, e.emuPid, 0); waited > time.Second {
		logf("  waited %s for the emulator and the harness to go quiet", harness.FormatDuration(waited))
	}
	if q.Quotas {
		// Setting the conditions refills the buckets: the run starts from
		// full buckets of the reduced quotas, as the other rows do of AWS's.
		if err := e.ctl.SetFaults(ctx, e.conditions(q)); err != nil {
			return nil, err
		}
		defer func() {
			if err := e.ctl.SetFaults(ctx, e.faults); err != nil {
				logf("  ! could not restore the measurement conditions: %v", err)
			}
		}()
	}
	row.Load = harness.LoadAvg()
	before, err := e.ctl.Stats(ctx)
	if err != nil {
		return nil, err
	}
	by := ""
	if who != "" {
		by = " [" + who + "]"
	}
	logf("%s N=%d --concurrency %s%s: running (lower bound %s)", sc.Label(), sc.N, label, by, harness.FormatDuration(row.Bound))
	m, err := harness.Run(ctx, harness.Invocation{Bin: bin, Args: args, Env: env, Dir: e.home})
	if err != nil {
		return nil, err
	}
	after, err := e.ctl.Stats(ctx)
	if err != nil {
		return nil, err
	}
	row.Wall, row.MaxRSSKiB, row.ExitCode, row.CPU = m.Wall, m.MaxRSSKiB, m.ExitCode, m.CPU
	row.Delta = harness.Sub(after, before)
	row.Phases = harness.LogDurations(m.Stdout)
	if len(m.Stderr) > 0 {
		row.Problems = append(row.Problems, fmt.Sprintf("stderr: %.200q", m.Stderr))
	}
	rep, rerr := harness.ReadReport(reportFile)
	if rerr != nil {
		row.Problems = append(row.Problems, "no valid report: "+rerr.Error())
	} else {
		row.Status = string(rep.Status)
		k := rep.Counts
		row.Counts = fmt.Sprintf("c%d u%d r%d d%d =%d", k.Create, k.Update, k.Restore, k.ScheduleDelete, k.Unchanged)
	}
	row.Problems = append(row.Problems, check(sc, m.ExitCode, string(rep.Status), rep.Counts, row.Delta)...)
	row.Notes = callNotes(sc, row.Delta)
	logf("  → %s, exit %d, %s, %d calls (%s), %d throttled, %d connections, peak RSS %.0f MiB, CPU %s (%.3f s per 1,000)",
		harness.FormatDuration(row.Wall), row.ExitCode, row.Status, row.Delta.Calls.Total(),
		harness.FormatCalls(row.Delta.Calls), row.Delta.Throttled.Total(), row.Delta.Connections, float64(row.MaxRSSKiB)/1024,
		harness.FormatDuration(row.CPU), row.CPUPer1000())
	for _, p := range row.Problems {
		logf("  ! %s", p)
	}
	return row, nil
}

// check returns what is wrong with a run's outcome for its scenario.
func check(sc harness.Scenario, exit int, status string, k vocab.Counts, d harness.Delta) []string {
	var p []string
	if exit != 0 {
		p = append(p, fmt.Sprintf("exit %d", exit))
	}
	if status != string(vocab.StatusConverged) {
		p = append(p, "status "+status)
	}
	mut := d.Calls.Mutations()
	switch sc.Kind {
	case harness.NoopPlan, harness.NoopSync, harness.PSNoopSync:
		if mut != 0 {
			p = append(p, fmt.Sprintf("%d mutating calls in a no-op run", mut))
		}
		if k.Unchanged != sc.N {
			p = append(p, fmt.Sprintf("unchanged %d ≠ %d", k.Unchanged, sc.N))
		}
	case harness.Changed:
		if k.Update != sc.M {
			p = append(p, fmt.Sprintf("updated %d ≠ %d", k.Update, sc.M))
		}
	case harness.Create, harness.PSCreate:
		if want := sc.N * sc.PerRun(); k.Create != want {
			p = append(p, fmt.Sprintf("created %d ≠ %d", k.Create, want))
		}
	}
	return p
}

// callNotes compares the calls that were answered (throttled ones and the
// SDK's own transport retries removed) with the documented algorithm's
// exact counts, and names the SDK retries, if any.
func callNotes(sc harness.Scenario, d harness.Delta) []string {
	want := harness.ExpectedCalls(sc)
	got := harness.Calls{}
	for op, n := range d.Sent() {
		if v := n - d.Throttled[op]; v != 0 {
			got[op] = v
		}
	}
	var notes []string
	if n := d.Retries.Total(); n > 0 {
		notes = append(notes, fmt.Sprintf("%d SDK retries (%s)", n, harness.FormatCalls(d.Retries)))
	}
	ops := slices.Sorted(maps.Keys(want))
	for op := range got {
		if _, ok := want[op]; !ok {
			ops = append(ops, op)
		}
	}
	for _, op := range ops {
		if got[op] != want[op] {
			notes = append(notes, fmt.Sprintf("%s %d answered, algorithm says %d", op, got[op], want[op]))
		}
	}
	return notes
}
