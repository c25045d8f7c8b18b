package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// env is the state of one harness run.
type env struct {
	o       options
	bins    harness.Binaries
	ctl     emulatortest.Control
	sm      *secretsmanager.Client
	emuURL  string
	emuPid  int
	repo    harness.Repo
	keyFile string
	home    string
	reports string
	model   harness.Model
	faults  emulator.Faults // the measurement conditions
	runs    int
	// loadStart is the load average when the harness started.
	loadStart string
	// ba is the before/after comparison with -baseline (Baseline.Rev ""
	// when none was asked for).
	ba harness.BeforeAfter
	// baScale is the same comparison at the scale N (row group scale);
	// its Baseline is ba's once built.
	baScale harness.BeforeAfter
	// accCorpora are the many-accounts rows' corpora, one per account
	// (accounts.go); nil unless row group accounts runs.
	accCorpora []harness.Corpus
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options) error {
	started := time.Now()
	work := o.work
	if work == "" {
		d, err := os.MkdirTemp("", "sops-aws-sync-bench-")
		if err != nil {
			return err
		}
		work = d
		if !o.keep {
			defer os.RemoveAll(d)
		}
	}
	e := &env{
		o: o, home: filepath.Join(work, "home"), reports: filepath.Join(work, "reports"),
		model: harness.Model{Latency: o.latency}, loadStart: harness.LoadAvg(),
		faults: emulator.Faults{
			Seed: 1, LatencyMS: o.latency.Milliseconds(), Quotas: true, QuotaScale: 1,
		},
	}
	for _, d := range []string{e.home, e.reports} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}

	logf("building the CLI and the emulator (CGO_ENABLED=0, -trimpath)")
	bins, err := harness.Build(o.root, filepath.Join(work, "bin"))
	if err != nil {
		return err
	}
	e.bins = bins
	if o.baseline != "" {
		logf("building the CLI at the baseline revision %s (git archive, same build flags)", o.baseline)
		e.ba.Baseline = harness.BuildBaseline(o.root, o.baseline, filepath.Join(work, "baseline"))
		if e.ba.Baseline.Err != "" {
			logf("  ! baseline not built, its rows will be reported as not measured: %s", e.ba.Baseline.Err)
		} else {
			logf("  built %s", e.ba.Baseline.Label())
		}
	}

	if o.runs("import") {
		return e.runImport(ctx, work, started) // alone (parseFlags): import.go
	}

	corpora, create, psCorpora, err := e.makeRepo(work)
	if err != nil {
		return err
	}

	logf("starting the emulator: latency %v per call, AWS quotas on", o.latency)
	emu, err := emulatortest.StartProcess(ctx, bins.Emulator, os.Stderr, "--seed", "1")
	if err != nil {
		return err
	}
	defer func() {
		if err := emu.Stop(); err != nil {
			logf("emulator stop: %v", err)
		}
	}()
	e.emuURL = emu.URL
	e.emuPid = emu.Pid()
	e.ctl = emu.Control()
	e.sm = harness.NewClient(emu.URL)

	var rows []*harness.Row
	tg := harness.Targets{}
	largest := o.sizes[len(o.sizes)-1]
	for _, n := range slices.Sorted(func(yield func(int) bool) {
		for k := range corpora {
			if !yield(k) {
				return
			}
		}
	}) {
		c := corpora[n]
		if err := e.seed(ctx, c, nil); err != nil {
			return err
		}
		var here []*harness.Row
		var defaultNoop *harness.Row // the no-op sync at the default concurrency, if measured
		measure := func(kind harness.Kind, conc int) (*harness.Row, error) {
			r, err := e.measure(ctx, kind, c, conc, emulator.Quotas{})
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
			here = append(here, r)
			if n == largest {
				tg.LargeRuns = append(tg.LargeRuns, r)
			}
			return r, nil
		}
		if o.runs("noop") && slices.Contains(o.sizes, n) {
			for _, kind := range []harness.Kind{harness.NoopPlan, harness.NoopSync} {
				for _, conc := range []int{1, 0} {
					r, err := measure(kind, conc)
					if err != nil {
						return err
					}
					if kind == harness.NoopSync {
						tg.NoopSyncs = append(tg.NoopSyncs, r)
						if conc == 0 {
							defaultNoop = r
						}
						if n == largest && conc == 1 {
							tg.NoopSeq = r
						} else if n == largest {
							tg.NoopDefault = r
						}
					}
				}
			}
		}
		if n == largest && e.ba.Asked() && e.ba.Baseline.Err == "" {
			// Before and after in the same run: the baseline build and
			// the current one alternately, over the scope the rows above
			// left as seeded.
			if err := e.beforeAfter(ctx, c, &e.ba); err != nil {
				return err
			}
		}
		if o.runs("sweep") && slices.Contains(o.sweepNs, n) {
			for _, conc := range o.sweep {
				if slices.ContainsFunc(here, func(r *harness.Row) bool {
					return r.Scenario.Kind == harness.NoopSync && r.Scenario.Concurrency == conc && r.Skipped == ""
				}) {
					continue
				}
				r, err := measure(harness.NoopSync, conc)
				if err != nil {
					return err
				}
				tg.NoopSyncs = append(tg.NoopSyncs, r)
			}
		}
		if o.runs("quota-noop") && n == o.quotaNoopN {
			// Before the changed run, which leaves every tenth secret stale.
			r, err := e.measure(ctx, harness.NoopSync, c, 0, e.describeQuota())
			if err != nil {
				return err
			}
			rows = append(rows, r)
			tg.NoopReduced = r
		}
		if o.runs("changed") && n == o.changedN {
			for _, conc := range []int{0, 1} {
				stale := harness.EveryTenth(n)
				if conc == 1 && n > o.seqMaxN {
					// Not measured; no need to prepare it.
				} else if err := e.seed(ctx, c, stale); err != nil {
					return err
				}
				if _, err := measure(harness.Changed, conc); err != nil {
					return err
				}
			}
		}
		if o.runs("scale") && n == o.scaleN {
			// Scale rows: the no-op sync at the scale N (unless the noop
			// group has just measured it), then the first sync creating
			// all N from an empty scope; last, because it empties the
			// scope the rows above read.
			if defaultNoop == nil {
				r, err := measure(harness.NoopSync, 0)
				if err != nil {
					return err
				}
				defaultNoop = r
			}
			tg.ScaleNoop = defaultNoop
			if e.ba.Asked() && e.ba.Baseline.Err == "" {
				// Before and after at the scale N too, over the seeded
				// scope, before the create row empties it.
				e.baScale.Baseline = e.ba.Baseline
				if err := e.beforeAfter(ctx, c, &e.baScale); err != nil {
					return err
				}
			}
			if err := e.emptyScope(ctx); err != nil {
				return err
			}
			r, err := measure(harness.Create, 0)
			if err != nil {
				return err
			}
			tg.ScaleCreate = r
		}
	}

	for _, conc := range []int{0, 1} {
		if !o.runs("create") {
			break
		}
		if err := e.emptyScope(ctx); err != nil {
			return err
		}
		r, err := e.measure(ctx, harness.Create, create, conc, emulator.Quotas{})
		if err != nil {
			return err
		}
		rows = append(rows, r)
		if conc == 0 {
			tg.CreateDefault = r
		}
	}
	if o.runs("quota-create") {
		if err := e.emptyScope(ctx); err != nil {
			return err
		}
		r, err := e.measure(ctx, harness.Create, create, 0, emulator.Quotas{Quotas: true, QuotaScale: o.quotaScale})
		if err != nil {
			return err
		}
		rows = append(rows, r)
		tg.CreateReduced = r
	}

	if o.runs("regions") {
		// Regions rows: the first sync in one Region, then the same in
		// o.regions Regions by one run, one scope per Region.
		for _, k := range []int{1, o.regions} {
			if err := e.emptyScope(ctx); err != nil {
				return err
			}
			r, err := e.measureIn(ctx, harness.Create, create, 0, emulator.Quotas{}, k)
			if err != nil {
				return err
			}
			rows = append(rows, r)
			if k == 1 {
				tg.RegionsOne = r
			} else {
				tg.RegionsCreate = r
			}
		}
	}

	if o.runs("ps") {
		// Parameter Store (SPEC §16): the no-op sync at each -ps-n over a
		// prefix seeded with exactly its parameters, then the first sync
		// creating -ps-create-n into an empty one; default concurrency.
		for _, c := range psCorpora {
			kind := harness.PSNoopSync
			if c.Scope.SourceRoot == psCreateRoot(o.psCreateN) {
				kind = harness.PSCreate
				if err := e.emptyScope(ctx); err != nil {
					return err
				}
			} else if err := e.seedPS(ctx, c); err != nil {
				return err
			}
			r, err := e.measure(ctx, kind, c, 0, emulator.Quotas{})
			if err != nil {
				return err
			}
			rows = append(rows, r)
			tg.PS = append(tg.PS, r)
		}
	}

	if o.runs("accounts") {
		acc, err := e.accountsRows(ctx)
		if err != nil {
			return err
		}
		rows = append(rows, acc...)
	}

	if e.ba.Asked() && e.ba.Baseline.Err == "" && e.ba.N == 0 {
		e.ba.Skipped = fmt.Sprintf("no corpus at the largest -n %d (row groups noop and sweep not selected there)", largest)
	}
	if e.ba.Asked() {
		tg.BeforeAfter = &e.ba
	}
	if e.baScale.Asked() {
		tg.ScaleBeforeAfter = &e.baScale
	}
	tg.MaxRegression = o.maxRegression

	var micro []microResult
	if o.micro {
		micro = runMicro(ctx, o.root)
	}
	verdicts := append(harness.Judge(tg), harness.JudgeAccounts(rows)...)
	gen := render(e, rows, verdicts, micro, time.Since(started))
	fmt.Println(gen)
	if o.out != "" {
		if err := harness.WriteDocSection(o.out, o.section, gen); err != nil {
			return err
		}
		logf("wrote %s", o.out)
	}
	if o.jsonOut != "" {
		if err := harness.WriteResults(o.jsonOut, e.results(rows, verdicts, started)); err != nil {
			return err
		}
		logf("wrote %s", o.jsonOut)
	}
	// The benchmark's own check (-baseline, -max-regression): after the
	// results are written, so a failed run still leaves its rows.
	if regs := harness.RegressionCheck(tg.Comparisons(), tg.RegressionLimit()); len(regs) > 0 {
		msgs := make([]string, len(regs))
		for i, r := range regs {
			msgs[i] = r.String()
			logf("  ! regression: %s", msgs[i])
		}
		return fmt.Errorf("regression against %s: %s", e.ba.Baseline.Label(), strings.Join(msgs, "; "))
	}
	return nil
}

// beforeAfter runs the no-op sync over c at the default concurrency with
// the baseline build and the current one alternately, -baseline-pairs
// times, into ba. A run that goes wrong is recorded with its problems
// (and left out of the means), not returned as an error.
func (e *env) beforeAfter(ctx context.Context, c harness.Corpus, ba *harness.BeforeAfter) error {
	ba.N = len(c.Docs)
	for range e.o.baselinePairs {
		r, err := e.measureBin(ctx, ba.Baseline.CLI, ba.Baseline.Label(), harness.NoopSync, c, 0, emulator.Quotas{}, 0)
		if err != nil {
			return err
		}
		ba.Before = append(ba.Before, r)
		if r, err = e.measureBin(ctx, e.bins.CLI, "current", harness.NoopSync, c, 0, emulator.Quotas{}, 0); err != nil {
			return err
		}
		ba.After = append(ba.After, r)
	}
	return nil
}

// psCreateRoot is the source root of the Parameter Store create corpus.
func psCreateRoot(n int) string { return "pscreate" + strconv.Itoa(n) }

// makeRepo generates the corpora (one per distinct N, plus the create
// corpus, plus the Parameter Store corpora: one per -ps-n, then the
// create one), encrypts them in process, commits them, and checks a
// sample with the real sops CLI.
func (e *env) makeRepo(work string) (map[int]harness.Corpus, harness.Corpus, []harness.Corpus, error) {
	o := e.o
	key, err := harness.NewAgeKey()
	if err != nil {
		return nil, harness.Corpus{}, nil, err
	}
	e.keyFile = filepath.Join(work, "age", "keys.txt")
	if err := os.MkdirAll(filepath.Dir(e.keyFile), 0o700); err != nil {
		return nil, harness.Corpus{}, nil, err
	}
	if err := os.WriteFile(e.keyFile, []byte("# benchmark key\n"+key.Identity+"\n"), 0o600); err != nil {
		return nil, harness.Corpus{}, nil, err
	}
	// Only the corpora the selected rows read.
	var ns []int
	if o.runs("noop") {
		ns = append(ns, o.sizes...)
	}
	if o.runs("changed") {
		ns = append(ns, o.changedN)
	}
	if o.runs("sweep") {
		ns = append(ns, o.sweepNs...)
	}
	if o.runs("quota-noop") {
		ns = append(ns, o.quotaNoopN)
	}
	if o.runs("scale") {
		ns = append(ns, o.scaleN)
	}
	slices.Sort(ns)
	ns = slices.Compact(ns)
	corpora := map[int]harness.Corpus{}
	var all []harness.Corpus
	for _, n := range ns {
		c, err := harness.NewCorpus(harness.CorpusSpec{
			RepositoryID: "bench/repo", SourceRoot: "n" + strconv.Itoa(n), Prefix: "bench/n" + strconv.Itoa(n),
			N: n, ValueBytes: o.valueBytes, Seed: uint64(n),
		})
		if err != nil {
			return nil, harness.Corpus{}, nil, err
		}
		corpora[n] = c
		all = append(all, c)
	}
	var create harness.Corpus
	if o.runs("create") || o.runs("quota-create") || o.runs("regions") {
		if create, err = harness.NewCorpus(harness.CorpusSpec{
			RepositoryID: "bench/repo", SourceRoot: "create" + strconv.Itoa(o.createN), Prefix: "bench/create" + strconv.Itoa(o.createN),
			N: o.createN, ValueBytes: o.valueBytes, Seed: 7,
		}); err != nil {
			return nil, harness.Corpus{}, nil, err
		}
		all = append(all, create)
	}
	var ps []harness.Corpus
	if o.runs("ps") {
		specs := []harness.CorpusSpec{}
		for _, n := range o.psSizes {
			specs = append(specs, harness.CorpusSpec{SourceRoot: "ps" + strconv.Itoa(n), Prefix: "bench/ps" + strconv.Itoa(n), N: n, Seed: uint64(n) + 35})
		}
		if o.psCreateN > 0 {
			specs = append(specs, harness.CorpusSpec{SourceRoot: psCreateRoot(o.psCreateN), Prefix: "bench/" + psCreateRoot(o.psCreateN), N: o.psCreateN, Seed: 3500})
		}
		for _, sp := range specs {
			sp.RepositoryID, sp.ValueBytes, sp.Target = "bench/repo", o.valueBytes, model.TargetParameterStore
			c, err := harness.NewCorpus(sp)
			if err != nil {
				return nil, harness.Corpus{}, nil, err
			}
			ps = append(ps, c)
			all = append(all, c)
		}
	}
	if o.runs("accounts") {
		if e.accCorpora, err = accountCorpora(o); err != nil {
			return nil, harness.Corpus{}, nil, err
		}
		all = append(all, e.accCorpora...)
	}
	var cipher [][][]byte
	total := 0
	t0 := time.Now()
	for _, c := range all {
		ct, err := harness.EncryptAll(c.Docs, key.Recipient)
		if err != nil {
			return nil, harness.Corpus{}, nil, err
		}
		cipher = append(cipher, ct)
		total += len(c.Docs)
	}
	logf("encrypted %d documents in process (sops library, age) in %v", total, time.Since(t0).Round(time.Millisecond))
	if e.repo, err = harness.WriteRepo(filepath.Join(work, "git"), all, cipher); err != nil {
		return nil, harness.Corpus{}, nil, err
	}
	logf("committed them: %s", e.repo.Commit)
	checked := 0
	for i, c := range all {
		if len(e.accCorpora) > 1 && c.Scope.SourceRoot != e.accCorpora[0].Scope.SourceRoot && slices.ContainsFunc(e.accCorpora, func(a harness.Corpus) bool { return a.Scope.SourceRoot == c.Scope.SourceRoot }) {
			continue // one sample of the many-accounts corpora: they are made alike
		}
		for _, j := range []int{0, len(c.Docs) / 2, len(c.Docs) - 1} {
			if err := harness.VerifyWithSOPS(cipher[i][j], c.Docs[j].Value, e.keyFile, e.home); err != nil {
				return nil, harness.Corpus{}, nil, fmt.Errorf("document %s: %w", c.Docs[j].Path, err)
			}
			checked++
		}
	}
	logf("the sops CLI decrypted a sample of %d documents to the expected canonical values", checked)
	return corpora, create, ps, nil
}

// seedPS makes the emulator hold exactly c's parameters with faults off,
// then restores the measurement conditions.
func (e *env) seedPS(ctx context.Context, c harness.Corpus) error {
	if err := e.ctl.SetFaults(ctx, emulator.Faults{Seed: 1}); err != nil {
		return err
	}
	t0 := time.Now()
	if err := e.ctl.Reset(ctx); err != nil {
		return err
	}
	if err := harness.SeedParameters(ctx, harness.NewSSMClient(e.emuURL), c); err != nil {
		return err
	}
	logf("seeded %d owned parameters in %v", len(c.Docs), time.Since(t0).Round(time.Millisecond))
	return e.ctl.SetFaults(ctx, e.faults)
}

// seed makes the emulator hold exactly c's secrets (all values current,
// except the documents at stale) with faults off, then restores the
// measurement conditions (which refills the quota buckets).
func (e *env) seed(ctx context.Context, c harness.Corpus, stale []int) error {
	if err := e.ctl.SetFaults(ctx, emulator.Faults{Seed: 1}); err != nil {
		return err
	}
	t0 := time.Now()
	if stale == nil {
		if err := e.ctl.Reset(ctx); err != nil {
			return err
		}
		if err := harness.Seed(ctx, e.sm, c); err != nil {
			return err
		}
		logf("seeded %d owned secrets in %v", len(c.Docs), time.Since(t0).Round(time.Millisecond))
	} else {
		if err := harness.MakeStale(ctx, e.sm, c, stale); err != nil {
			return err
		}
		logf("made %d secrets differ from their documents", len(stale))
	}
	return e.ctl.SetFaults(ctx, e.faults)
}

// describeQuota is the quota-noop row's condition: AWS's quotas, the
// DescribeSecret family's (shared with GetSecretValue) scaled alone.
func (e *env) describeQuota() emulator.Quotas {
	return emulator.Quotas{Quotas: true, QuotaScales: map[string]float64{"DescribeSecret": e.o.describeScale}}
}

// conditions are the measurement conditions under q: e.faults, with q's
// quotas instead when q is on.
func (e *env) conditions(q emulator.Quotas) emulator.Faults {
	f := e.faults
	if q.Quotas {
		f.Quotas, f.QuotaScale, f.QuotaScales = true, q.QuotaScale, q.QuotaScales
	}
	return f
}

// emptyScope empties the emulator and sets the measurement conditions.
func (e *env) emptyScope(ctx context.Context) error {
	if err := e.ctl.Reset(ctx); err != nil {
		return err
	}
	return e.ctl.SetFaults(ctx, e.faults)
}

func defaultLabel() string { return fmt.Sprintf("%d (default)", config.DefaultConcurrency) }

// results is the run's machine-readable record (harness.Results).
func (e *env) results(rows []*harness.Row, verdicts []harness.Verdict, started time.Time) harness.Results {
	res := harness.Results{
		Section: e.o.section, Date: started.UTC().Format(time.RFC3339), Machine: harness.Machine(), Tree: harness.TreeState(e.o.root),
		Load: e.loadStart + " / " + harness.LoadAvg(), Latency: e.o.latency.Seconds(), Verdicts: verdicts,
	}
	for _, r := range rows {
		if rr, ok := harness.NewResultRow(*r, r.ConcurrencyLabel == defaultLabel()); ok {
			res.Rows = append(res.Rows, rr)
		}
	}
	if e.ba.Asked() {
		res.Baseline = e.ba.Baseline.Label()
		if e.ba.Baseline.Err != "" {
			res.Baseline += ": not built: " + e.ba.Baseline.Err
		}
		add := func(r *harness.Row, binary string) {
			if rr, ok := harness.NewResultRow(*r, r.ConcurrencyLabel == defaultLabel()); ok {
				rr.Binary = binary
				res.BeforeAfter = append(res.BeforeAfter, rr)
			}
		}
		for _, ba := range []harness.BeforeAfter{e.ba, e.baScale} {
			for i := range max(len(ba.Before), len(ba.After)) {
				if i < len(ba.Before) {
					add(ba.Before[i], "baseline")
				}
				if i < len(ba.After) {
					add(ba.After[i], "current")
				}
			}
		}
	}
	return res
}
