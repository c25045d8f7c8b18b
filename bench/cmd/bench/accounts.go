package main

import (
	"context"
	"flag"
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
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// The many-accounts rows (row group accounts, `make bench-accounts`;
// SPEC §17, docs/benchmarks.md "Many accounts"): a no-op sync over
// -accounts scopes, one per account, -accounts-per secrets each, at each
// -accounts-parallel; the same at the first of them with
// -accounts-unreachable accounts refused by STS and
// --max-unreachable-scopes that many; then `scopes generate
// --from-organizations` over -org-accounts accounts in -org-ous OUs.

// accountsOptions are the row group's flags.
type accountsOptions struct {
	accounts, per, unreachable int
	// parallel are the --parallel-scopes values measured (0 = the CLI's
	// default: no flag).
	parallel []int
	repeat   int
	// orgAccounts and orgOUs shape the scopes generate row (0 accounts =
	// not run).
	orgAccounts, orgOUs int
	// stsLatency is the latency the harness puts in front of STS (< 0:
	// -latency).
	stsLatency time.Duration
	rawPar     string
}

func accountsFlags(fs *flag.FlagSet, a *accountsOptions) {
	fs.IntVar(&a.accounts, "accounts", 200, "accounts of the many-accounts rows (row group accounts): one scope per account, one Region")
	fs.IntVar(&a.per, "accounts-per", 50, "secrets per account in the many-accounts rows")
	fs.IntVar(&a.unreachable, "accounts-unreachable", 10, "accounts STS refuses in the many-accounts row with --max-unreachable-scopes (0 = no such row)")
	fs.StringVar(&a.rawPar, "accounts-parallel", "0", "comma-separated --parallel-scopes values of the many-accounts no-op sync (0 = the CLI's default, no flag); the unreachable row runs at the first")
	fs.IntVar(&a.repeat, "accounts-repeat", 1, "runs of each many-accounts row (1..5)")
	fs.IntVar(&a.orgAccounts, "org-accounts", 500, "accounts of the scopes generate row (0 = no such row)")
	fs.IntVar(&a.orgOUs, "org-ous", 20, "OUs the scopes generate row's accounts are spread over")
	fs.DurationVar(&a.stsLatency, "sts-latency", -1, "latency added in front of the emulator's STS in the many-accounts rows (default: -latency)")
}

// check validates the flags and parses -accounts-parallel.
func (a *accountsOptions) check() error {
	a.parallel = nil
	for _, f := range strings.Split(a.rawPar, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return fmt.Errorf("-accounts-parallel: %q is not a non-negative integer", f)
		}
		if !slices.Contains(a.parallel, n) {
			a.parallel = append(a.parallel, n)
		}
	}
	switch {
	case len(a.parallel) == 0:
		return fmt.Errorf("-accounts-parallel: want at least one value")
	case a.accounts < 1 || a.accounts > 1000 || a.per < 1:
		return fmt.Errorf("-accounts must be in 1..1000 and -accounts-per ≥ 1")
	case a.unreachable < 0 || a.unreachable >= a.accounts:
		return fmt.Errorf("-accounts-unreachable must be in 0..-accounts − 1")
	case a.repeat < 1 || a.repeat > 5:
		return fmt.Errorf("-accounts-repeat must be in 1..5")
	case a.orgAccounts < 0 || (a.orgAccounts > 0 && (a.orgOUs < 1 || a.orgOUs > 20)):
		return fmt.Errorf("-org-accounts must be ≥ 0 and -org-ous in 1..20 (one page of OUs under the root)")
	}
	return nil
}

// accountCorpora are the many-accounts row group's corpora: one per
// account, source root acct/aNNN, the same prefix in every account.
func accountCorpora(o options) ([]harness.Corpus, error) {
	out := make([]harness.Corpus, o.acc.accounts)
	for i := range out {
		c, err := harness.NewCorpus(harness.CorpusSpec{RepositoryID: "bench/repo", SourceRoot: fmt.Sprintf("acct/a%03d", i),
			Prefix: "bench/app", N: o.acc.per, ValueBytes: o.valueBytes, Seed: 4500 + uint64(i)})
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// unreachableAccounts are the indexes of the accounts the unreachable row
// makes STS refuse: spread over the list (every k-th from the middle of
// the first stride), so that they fall in every wave of buckets.
func unreachableAccounts(accounts, u int) []int {
	if u == 0 {
		return nil
	}
	stride := accounts / u
	var out []int
	for k := range u {
		out = append(out, k*stride+stride/2)
	}
	return out
}

// accountsRows measures the row group: seeds every account, then the
// no-op syncs, the unreachable run and the scopes generate run (last: it
// empties the emulator).
func (e *env) accountsRows(ctx context.Context) ([]*harness.Row, error) {
	a := e.o.acc
	corpora := e.accCorpora
	if err := e.ctl.SetIAM(ctx, emulator.IAM{AccessKeys: harness.AccountsIAM(len(corpora))}); err != nil {
		return nil, err
	}
	if err := e.ctl.SetFaults(ctx, emulator.Faults{Seed: 1}); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := e.ctl.Reset(ctx); err != nil {
		return nil, err
	}
	if err := harness.SeedAccounts(ctx, e.emuURL, corpora); err != nil {
		return nil, err
	}
	logf("seeded %d accounts × %d owned secrets in %v", len(corpora), a.per, time.Since(t0).Round(time.Millisecond))
	if err := e.ctl.SetFaults(ctx, e.faults); err != nil {
		return nil, err
	}
	stsLatency := a.stsLatency
	if stsLatency < 0 {
		stsLatency = e.o.latency
	}
	e.model.STSLatency = stsLatency
	proxy, err := harness.StartDelayProxy(e.emuURL, stsLatency)
	if err != nil {
		return nil, err
	}
	defer proxy.Close()

	var rows []*harness.Row
	for _, p := range a.parallel {
		for range a.repeat {
			r, err := e.measureAccounts(ctx, proxy.URL, harness.AccountsNoop, p, nil)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
	}
	if a.unreachable > 0 {
		idx := unreachableAccounts(a.accounts, a.unreachable)
		for range a.repeat {
			r, err := e.measureAccounts(ctx, proxy.URL, harness.AccountsUnreachable, a.parallel[0], idx)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
	}
	if a.orgAccounts > 0 {
		r, err := e.measureGenerate(ctx)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// accountsEnv is the CLI's environment in the row group: the run's, with
// STS through the latency proxy at sts and Organizations at the emulator.
func (e *env) accountsEnv(sts string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "TMPDIR=" + os.TempDir(),
		"SOPS_AGE_KEY_FILE=" + e.keyFile,
		"AWS_ACCESS_KEY_ID=AKIDBENCH", "AWS_SECRET_ACCESS_KEY=bench-secret",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + e.emuURL, "AWS_ENDPOINT_URL_STS=" + sts, "AWS_ENDPOINT_URL_ORGANIZATIONS=" + e.emuURL,
		"AWS_EC2_METADATA_DISABLED=true",
	}
	return append(env, e.o.cliEnv...)
}

// runMeasured runs the CLI with args, between two stats snapshots and two
// load readings, into row.
func (e *env) runMeasured(ctx context.Context, row *harness.Row, args, env []string) (harness.Measurement, error) {
	if waited := harness.WaitQuiet(15*time.Second, e.emuPid, 0); waited > time.Second {
		logf("  waited %s for the emulator and the harness to go quiet", harness.FormatDuration(waited))
	}
	before, err := e.ctl.Stats(ctx)
	if err != nil {
		return harness.Measurement{}, err
	}
	load := harness.LoadAvg()
	m, err := harness.Run(ctx, harness.Invocation{Bin: e.bins.CLI, Args: args, Env: env, Dir: e.home})
	if err != nil {
		return m, err
	}
	after, err := e.ctl.Stats(ctx)
	if err != nil {
		return m, err
	}
	row.Load, row.LoadAfter = load, harness.LoadAvg()
	row.Wall, row.MaxRSSKiB, row.ExitCode, row.CPU = m.Wall, m.MaxRSSKiB, m.ExitCode, m.CPU
	row.Delta = harness.Sub(after, before)
	row.Phases = harness.LogDurations(m.Stdout)
	row.Notes = callNotes(row.Scenario, row.Delta)
	return m, nil
}

// measureAccounts runs one many-accounts sync at --parallel-scopes p (0 =
// the CLI's default), the accounts at unreachable refused by STS
// (Faults.STSRefuseAccounts) and --max-unreachable-scopes that many.
func (e *env) measureAccounts(ctx context.Context, sts string, kind harness.Kind, p int, unreachable []int) (*harness.Row, error) {
	corpora := e.accCorpora
	per := len(corpora[0].Docs)
	sc := harness.Scenario{Kind: kind, N: len(corpora) * per, Concurrency: config.DefaultConcurrency,
		Accounts: harness.AccountsScenario{Accounts: len(corpora), Unreachable: len(unreachable), Parallel: p}}
	label := strconv.Itoa(p)
	if p == 0 {
		sc.Accounts.Parallel = config.DefaultParallelScopes()
		label = fmt.Sprintf("%d (default)", sc.Accounts.Parallel)
	}
	row := &harness.Row{Scenario: sc, ConcurrencyLabel: label}
	row.Bound, row.BoundFormula = e.model.LowerBound(sc)
	e.runs++
	cfg := filepath.Join(e.reports, fmt.Sprintf("run-%03d.yaml", e.runs))
	if err := os.WriteFile(cfg, []byte(harness.AccountsConfig(corpora)), 0o600); err != nil {
		return nil, err
	}
	reportFile := filepath.Join(e.reports, fmt.Sprintf("run-%03d.json", e.runs))
	args := []string{"sync", "--repository", e.repo.Dir, "--revision", e.repo.Commit, "--config", cfg,
		"--report-file", reportFile, "--log-format", "json", "--run-timeout", "60m", "--verification-timeout", "30m"}
	if p != 0 {
		args = append(args, "--parallel-scopes", strconv.Itoa(p))
	}
	var refused []string
	names := map[string]bool{}
	for _, i := range unreachable {
		refused = append(refused, harness.AccountID(i))
		names[fmt.Sprintf("a%03d", i)] = true
	}
	if len(unreachable) > 0 {
		args = append(args, "--max-unreachable-scopes", strconv.Itoa(len(unreachable)))
		f := e.faults
		f.STSRefuseAccounts = refused
		if err := e.ctl.SetFaults(ctx, f); err != nil {
			return nil, err
		}
		defer func() {
			if err := e.ctl.SetFaults(ctx, e.faults); err != nil {
				logf("  ! could not restore the measurement conditions: %v", err)
			}
		}()
	}
	logf("%s: %d accounts × %d, --parallel-scopes %s, %d unreachable: running (lower bound %s; the tool's paced AssumeRoles first: %s)",
		kind, sc.Accounts.Accounts, per, label, len(unreachable), harness.FormatDuration(row.Bound), harness.FormatDuration(e.model.PacedSTS(sc)))
	m, err := e.runMeasured(ctx, row, args, e.accountsEnv(sts))
	if err != nil {
		return nil, err
	}
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
	row.Problems = append(row.Problems, checkAccounts(sc, m.ExitCode, rep.Status, rep.Counts.Unchanged, scopeStatuses(rep.Scopes), names, row.Delta)...)
	logf("  → %s (bound %s, %.2f×), CPU %s, exit %d, %s, %d calls (%s), AssumeRole %d, peak RSS %.0f MiB, load %s → %s",
		harness.FormatDuration(row.Wall), harness.FormatDuration(row.Bound), row.Ratio(), harness.FormatDuration(row.CPU), row.ExitCode, row.Status,
		row.Delta.Calls.Total(), harness.FormatCalls(row.Delta.Calls), row.Delta.Sent()["AssumeRole"], float64(row.MaxRSSKiB)/1024, row.Load, row.LoadAfter)
	for _, p := range row.Problems {
		logf("  ! %s", p)
	}
	return row, nil
}

// scopeStatuses is a report's scopes, name → status.
func scopeStatuses(scopes []report.Scope) map[string]vocab.Status {
	out := map[string]vocab.Status{}
	for _, x := range scopes {
		out[x.Name] = x.Status
	}
	return out
}

// checkAccounts returns what is wrong with a many-accounts run's outcome:
// a no-op over every account ends exit 0, converged, every document
// unchanged, no write; with unreachable accounts (names, the scopes of
// the refused accounts) exit 5, status unreachable, exactly those scopes
// unreachable in the report and every other converged with its
// documents unchanged, no write.
func checkAccounts(sc harness.Scenario, exit int, status vocab.Status, unchanged int, scopes map[string]vocab.Status, names map[string]bool, d harness.Delta) []string {
	var p []string
	wantExit, wantStatus := 0, vocab.StatusConverged
	if sc.Kind == harness.AccountsUnreachable {
		wantExit, wantStatus = 5, vocab.StatusUnreachable
	}
	if exit != wantExit {
		p = append(p, fmt.Sprintf("exit %d, want %d", exit, wantExit))
	}
	if status != wantStatus {
		p = append(p, fmt.Sprintf("status %s, want %s", status, wantStatus))
	}
	if mut := d.Calls.Mutations(); mut != 0 {
		p = append(p, fmt.Sprintf("%d mutating calls in a no-op run", mut))
	}
	if want := sc.Reachable() * sc.PerAccount(); unchanged != want {
		p = append(p, fmt.Sprintf("unchanged %d ≠ %d", unchanged, want))
	}
	converged, skipped := 0, 0
	for name, st := range scopes {
		switch {
		case st == vocab.StatusUnreachable && names[name]:
			skipped++
		case st == vocab.StatusConverged && !names[name]:
			converged++
		default:
			p = append(p, fmt.Sprintf("scope %s ended %s", name, st))
		}
	}
	if converged != sc.Reachable() || skipped != sc.Accounts.Unreachable {
		p = append(p, fmt.Sprintf("%d scopes converged and %d unreachable in the report, want %d and %d", converged, skipped, sc.Reachable(), sc.Accounts.Unreachable))
	}
	return p
}

// measureGenerate builds an organization of -org-accounts accounts in
// -org-ous OUs (faults off; it resets the emulator first) and measures
// `scopes generate --from-organizations` over it under the measurement
// conditions (the Organizations reads' quota on).
func (e *env) measureGenerate(ctx context.Context) (*harness.Row, error) {
	a := e.o.acc
	shape := harness.OrgShape{Accounts: a.orgAccounts, OUs: a.orgOUs}
	if err := e.ctl.SetFaults(ctx, emulator.Faults{Seed: 1}); err != nil {
		return nil, err
	}
	if err := e.ctl.Reset(ctx); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := harness.BuildOrganization(ctx, e.emuURL, shape); err != nil {
		return nil, err
	}
	logf("built an organization of %d accounts in %d OUs in %v", shape.Accounts, shape.OUs, time.Since(t0).Round(time.Millisecond))
	if err := e.ctl.SetFaults(ctx, e.faults); err != nil {
		return nil, err
	}
	sc := harness.Scenario{Kind: harness.OrgGenerate, N: shape.Accounts, Accounts: harness.AccountsScenario{OUs: shape.OUs}}
	row := &harness.Row{Scenario: sc}
	row.Bound, row.BoundFormula = e.model.LowerBound(sc)
	e.runs++
	out := filepath.Join(e.reports, fmt.Sprintf("run-%03d-scopes.yaml", e.runs))
	args := []string{"scopes", "generate", "--from-organizations", "--regions", "us-east-1", "--role-name", "bench-sync", "--output", out}
	logf("scopes generate over %d accounts in %d OUs: running (minimum %d calls, lower bound %s)", shape.Accounts, shape.OUs,
		harness.OrgGenerateMinimum(shape).Total(), harness.FormatDuration(row.Bound))
	m, err := e.runMeasured(ctx, row, args, e.accountsEnv(e.emuURL))
	if err != nil {
		return nil, err
	}
	row.Status = "written"
	if m.ExitCode != 0 {
		row.Status = "failed"
		row.Problems = append(row.Problems, fmt.Sprintf("exit %d: %.300q", m.ExitCode, m.Stderr))
	} else if b, err := os.ReadFile(out); err != nil {
		row.Problems = append(row.Problems, "no output file: "+err.Error())
	} else if n := strings.Count(string(b), "role-arn: "); n != shape.Accounts+1 {
		// Every member account and the management account (ACTIVE, in
		// the root) get a scope.
		row.Problems = append(row.Problems, fmt.Sprintf("%d scopes written, want %d", n, shape.Accounts+1))
	} else {
		row.Counts = fmt.Sprintf("%d scopes", n)
	}
	sent := row.Delta.Sent()
	logf("  → %s (bound %s), CPU %s, exit %d, %d Organizations calls (%s), %d throttled",
		harness.FormatDuration(row.Wall), harness.FormatDuration(row.Bound), harness.FormatDuration(row.CPU), row.ExitCode,
		sent.Total(), harness.FormatCalls(sent), row.Delta.Throttled.Total())
	for _, p := range row.Problems {
		logf("  ! %s", p)
	}
	return row, nil
}

// accountsOnly reports whether every row is of the row group accounts.
func accountsOnly(rows []*harness.Row) bool {
	return len(rows) > 0 && !slices.ContainsFunc(rows, func(r *harness.Row) bool {
		return !r.Scenario.Kind.ManyAccounts() && r.Scenario.Kind != harness.OrgGenerate
	})
}

// renderAccounts is the generated block of a run of the row group alone.
func renderAccounts(w func(string, ...any), e *env, rows []*harness.Row, verdicts []harness.Verdict) {
	a := e.o.acc
	w("- Conditions: emulator binary with %v latency per Secrets Manager call and AWS request quotas on (each account its own buckets); STS through a proxy of the harness adding %v per call (the emulator adds none to STS); the Organizations reads' quota of %d/s; ",
		e.o.latency, e.model.STSLatency, harness.OrgReadRate)
	w("%d accounts, one scope each in us-east-1 through the role bench-sync of its account, %d age-encrypted SOPS JSON documents of about %d bytes per scope, all in one commit; every account seeded directly (faults off) with exactly the secrets the CLI would create.\n",
		a.accounts, a.per, e.o.valueBytes)
	w("- Each sync: `sops-aws-sync sync --config F --repository R --revision SHA --report-file F --log-format json [--parallel-scopes P] [--max-unreachable-scopes U]`; the unreachable accounts are refused by STS (`sts_refuse_accounts`: AccessDenied, as for a suspended account). Calls are the emulator's `/_emulator/stats` difference around the run (STS and Organizations included); CPU is the CLI's user + system time (wait4's rusage); peak RSS its own `VmHWM`; load is the 1-minute load average before → after the run.\n\n")
	var mine []harness.Verdict
	for _, v := range verdicts {
		if strings.Contains(v.Target, "accounts") {
			mine = append(mine, v)
		}
	}
	w("### Targets (issue 45)\n\n%s\n", harness.VerdictTable(mine))
	if e.o.jsonOut != "" {
		w("The figures of this run are in `%s`.\n\n", relTo(e.o.root, e.o.jsonOut))
	}
	w("### Runs\n\n%s\n", harness.AccountsTable(rows, e.model.PacedSTS))
	w("Lower bounds (L = %v per Secrets Manager call, Lₛ = %v per STS call, C = %d calls in flight per scope, P = --parallel-scopes, A accounts of which U unreachable, n secrets each; decryption and process start-up excluded; derived in \"Many accounts\" above): ",
		e.o.latency, e.model.STSLatency, config.DefaultConcurrency)
	w("⌈(A − U)/P⌉·(Lₛ + obs(n)) for a sync, obs(n) the single-scope no-op bound; (k − 10)/10 s + L for scopes generate's k Organizations reads under their 10/s quota. The tool's floor is its own algorithm's least time: every role assumed first, at most P at once, paced at %d/s (burst %d), then the buckets: max(⌈A/P⌉·Lₛ, (A − %d)/%d s + Lₛ) + ⌈(A − U)/P⌉·obs(n).\n\n",
		harness.STSPaceRate, harness.STSPaceBurst, harness.STSPaceBurst, harness.STSPaceRate)
	w("### Per-run details\n\nAnswered calls (throttled attempts removed) compared with the documented algorithm, and the durations the CLI logged (`phase/msg`: ms, summed over the scopes).\n\n")
	for _, r := range rows {
		if r.Scenario.Kind == harness.OrgGenerate {
			w("- %s, %d accounts in %d OUs:", r.Scenario.Kind, r.Scenario.N, r.Scenario.Accounts.OUs)
		} else {
			w("- %s, --parallel-scopes %s:", r.Scenario.Kind, r.ConcurrencyLabel)
		}
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
