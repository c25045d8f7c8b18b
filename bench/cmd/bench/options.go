package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
)

type options struct {
	root       string        // module root
	sizes      []int         // N for the no-op plan/sync runs
	changedN   int           // N of the 10%-changed sync
	createN    int           // secrets created by the first sync
	sweep      []int         // --concurrency values of the sweep
	sweepNs    []int         // N of the sweeps (no-op sync)
	seqMaxN    int           // --concurrency 1 runs only for N ≤ this
	latency    time.Duration // per-call latency of the emulator
	valueBytes int
	out        string // doc to write ("" = none)
	work       string
	keep       bool
	micro      bool // run the Go micro-benchmarks too
	quick      bool
	asDefault  int             // pass --concurrency asDefault in the "default" runs (0 = no flag)
	cliEnv     []string        // extra KEY=VALUE for every CLI run (experiments, e.g. GOGC)
	skip       map[string]bool // row groups not to run (rowGroups); -only sets every other one
	// The reduced-quota rows (a quota shared with other clients): a first sync creating createN at
	// quotaScale of every quota, and a no-op sync at quotaNoopN with the
	// DescribeSecret quota at describeScale.
	quotaScale    float64
	describeScale float64
	quotaNoopN    int
	// scaleN is the N of the scale rows (row group scale): a
	// no-op sync and a first sync creating every secret, default
	// concurrency.
	scaleN int
	// regions is how many Regions the first sync of row group regions
	// creates the createN secrets in, in one run (one scope per Region,
	// each its own quota bucket).
	regions int
	// section names the generated block of the Markdown file (markers
	// <!-- section:begin … --> / <!-- section:end -->) and of the JSON
	// results file docs/benchmarks/<section>.json written beside it.
	section string
	// jsonOut is the JSON results file ("" = none; default: beside -out).
	jsonOut string
	// baseline is a git revision whose CLI is built and run beside the
	// current one, alternately, at the largest -n (no-op sync, default
	// concurrency): before and after in the same run ("" = none).
	baseline string
	// baselinePairs is how many (baseline, current) pairs run.
	baselinePairs int
	// maxRegression is the benchmark's own check of the -baseline
	// comparisons (harness.RegressionCheck): the fraction a compared row's
	// CPU per 1,000 or peak RSS may exceed the baseline's; < 0 = no check.
	maxRegression float64
	// psSizes are the N of the Parameter Store no-op syncs and psCreateN
	// the parameters its first sync creates (row group ps; not
	// run unless -only names it: `make bench-ps`).
	psSizes   []int
	psCreateN int
	// importN is the estate of the import rows (row group import, run
	// alone: `make bench-import`) and importRuns how many imports of
	// the current build they measure (bench/cmd/bench/import.go).
	importN, importRuns int
	// acc are the many-accounts rows' settings (row group accounts; not
	// run unless -only names it: `make bench-accounts`; accounts.go).
	acc accountsOptions
}

// rowGroups are the groups of rows -skip and -only select: the no-op plan
// and sync at each -n, the concurrency sweeps, the 10 %-changed sync, the
// first sync (create), the two reduced-quota rows ("quota" stands
// for both of those), and the scale rows at -scale-n (not run by
// default: `make bench-scale` selects them), and the first sync in
// -regions Regions in one run beside the same in one Region.
var rowGroups = []string{"noop", "sweep", "changed", "create", "quota-create", "quota-noop", "scale", "regions", "ps", "import", "accounts"}

// sectionName is what -section accepts: it becomes a marker and a file name.
var sectionName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// runs reports whether row group g is selected.
func (o options) runs(g string) bool { return !o.skip[g] }

// parseGroups turns a -skip or -only value into a set of row groups.
func parseGroups(flagName, v string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, g := range strings.Split(v, ",") {
		switch g = strings.TrimSpace(g); {
		case g == "":
		case g == "quota":
			out["quota-create"], out["quota-noop"] = true, true
		case slices.Contains(rowGroups, g):
			out[g] = true
		default:
			return nil, fmt.Errorf("%s: unknown row group %q (%s, quota)", flagName, g, strings.Join(rowGroups, ", "))
		}
	}
	return out, nil
}

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var o options
	var sizes, sweep, sweepNs string
	fs.StringVar(&o.root, "root", ".", "module root (where go.mod is)")
	fs.StringVar(&sizes, "n", "", "comma-separated N for no-op plan and sync (default 1000,10000; quick 200,1000)")
	fs.IntVar(&o.changedN, "changed-n", 0, "N of the sync with 10% of values changed (default: the largest -n)")
	fs.IntVar(&o.createN, "create-n", 0, "secrets created by the first sync (default 2000; quick 500)")
	fs.StringVar(&sweep, "sweep", "", "--concurrency values for the no-op sync sweep (default 1,4,8,16,24,32,64; quick 1,8,32)")
	fs.StringVar(&sweepNs, "sweep-n", "", "comma-separated N of the concurrency sweeps (default 1000,10000; quick 1000)")
	fs.IntVar(&o.seqMaxN, "seq-max-n", 0, "run --concurrency 1 only for N up to this (default: every N; quick 1000)")
	fs.DurationVar(&o.latency, "latency", 20*time.Millisecond, "per-call latency added by the emulator")
	fs.IntVar(&o.valueBytes, "value-bytes", 1024, "approximate size of each secret value")
	fs.StringVar(&o.out, "out", "docs/benchmarks.md", "Markdown file to write the results into (\"\" = none; with -only the default is none)")
	fs.StringVar(&o.work, "work", "", "work directory (default: a new temporary directory)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory")
	fs.BoolVar(&o.micro, "micro", true, "also run the Go micro-benchmarks (desired-state decryption, emulator overhead; with -only the default is false)")
	fs.IntVar(&o.asDefault, "as-default", 0, "measure the default-concurrency runs with --concurrency N instead (to evaluate a candidate default)")
	fs.BoolVar(&o.quick, "quick", false, "small sizes for a fast check (minutes, not half an hour)")
	var cliEnv, skip, only, psSizes string
	fs.StringVar(&psSizes, "ps-n", "1000,10000", "comma-separated N of the Parameter Store no-op syncs (row group ps)")
	fs.IntVar(&o.psCreateN, "ps-create-n", 2000, "parameters the Parameter Store first sync creates (row group ps; 0 = none)")
	fs.IntVar(&o.importN, "import-n", 1000, "secrets of the import rows' estate (row group import, run alone)")
	fs.IntVar(&o.importRuns, "import-runs", 2, "imports of the current build the import rows measure (1..5)")
	fs.StringVar(&cliEnv, "cli-env", "", "comma-separated KEY=VALUE added to every CLI run's environment (for experiments such as GOGC=200; recorded in the output)")
	fs.StringVar(&skip, "skip", "", "comma-separated row groups not to run: noop, sweep, changed, create, quota-create, quota-noop, quota (= both quota rows), scale (skipped unless -only names it); the targets they decide become unknown")
	fs.StringVar(&only, "only", "", "comma-separated row groups to run, alone (same names as -skip), e.g. -only quota for issue 15's reduced-quota rows")
	fs.Float64Var(&o.quotaScale, "quota-scale", 0.2, "scale of every quota in the reduced-quota first sync (quota-create)")
	fs.Float64Var(&o.describeScale, "describe-quota-scale", 0.1, "scale of the DescribeSecret quota in the reduced-quota no-op sync (quota-noop)")
	fs.IntVar(&o.quotaNoopN, "quota-noop-n", 0, "N of the reduced-quota no-op sync (default 10000; quick 1000)")
	fs.IntVar(&o.scaleN, "scale-n", 50000, "N of the scale rows (row group scale: no-op sync and first sync creating all N, default concurrency)")
	fs.IntVar(&o.regions, "regions", 3, "Regions of the regions row: one run creates the -create-n secrets in each, one scope per Region (2..8)")
	fs.StringVar(&o.section, "section", "bench", "name of the generated block in -out (markers <!-- NAME:begin … -->, <!-- NAME:end -->) and of its JSON results file")
	fs.StringVar(&o.jsonOut, "json", "", "JSON results file (default: benchmarks/NAME.json beside -out when -out is set; \"\" with -out unset)")
	fs.StringVar(&o.baseline, "baseline", "", "git revision (of -root's repository) whose CLI is built (git archive + the same build flags) and run alternately with the current CLI: the no-op sync at the largest -n (and at -scale-n when the scale rows run), default concurrency; reported as before/after rows and target lines, and checked by -max-regression (a baseline that does not build is reported as not measured)")
	fs.Float64Var(&o.maxRegression, "max-regression", harness.DefaultRegressionLimit, "the benchmark's own check with -baseline: the run fails (exit 1, naming the row) when a compared row's mean CPU per 1,000 secrets or mean peak RSS is more than this fraction above the baseline build's (0 = the default; negative = no check)")
	accountsFlags(fs, &o.acc)
	fs.IntVar(&o.baselinePairs, "baseline-pairs", 2, "how many (baseline, current) pairs of -baseline runs, alternating (1..5)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, kv := range strings.Split(cliEnv, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return o, fmt.Errorf("-cli-env: %q is not KEY=VALUE", kv)
		}
		o.cliEnv = append(o.cliEnv, kv)
	}
	var err error
	if o.skip, err = parseGroups("-skip", skip); err != nil {
		return o, err
	}
	if only == "" {
		// The scale rows take about 25 minutes, the Parameter Store rows
		// about 15: only -only scale or -only ps runs them.
		o.skip["scale"] = true
		o.skip["ps"] = true
		o.skip["import"] = true
		o.skip["accounts"] = true
	}
	if only != "" {
		// A partial run must not replace the whole generated section of
		// docs/benchmarks.md: it prints, unless -out is given.
		// Nor does it run the micro-benchmarks unless -micro says so.
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["out"] {
			o.out = ""
		}
		if !set["micro"] {
			o.micro = false
		}
		sel, err := parseGroups("-only", only)
		if err != nil {
			return o, err
		}
		for _, g := range rowGroups {
			if !sel[g] {
				o.skip[g] = true
			}
		}
		if sel["import"] && len(sel) > 1 {
			return o, fmt.Errorf("-only: the row group import runs alone (its own estate, repository and emulator)")
		}
		if sel["import"] && !set["section"] {
			o.section = "bench-import" // never the main block of -out
		}
	}
	if o.importN < 1 || o.importRuns < 1 || o.importRuns > 5 {
		return o, fmt.Errorf("-import-n must be >= 1 and -import-runs in 1..5")
	}
	if !(o.quotaScale > 0 && o.quotaScale <= 1) || !(o.describeScale > 0 && o.describeScale <= 1) {
		return o, fmt.Errorf("-quota-scale and -describe-quota-scale must be in (0, 1]")
	}
	if err := o.acc.check(); err != nil {
		return o, err
	}
	if o.baselinePairs < 1 || o.baselinePairs > 5 {
		return o, fmt.Errorf("-baseline-pairs must be in 1..5")
	}
	if strings.HasPrefix(o.baseline, "-") || strings.ContainsAny(o.baseline, " \t\n") {
		return o, fmt.Errorf("-baseline: %q is not a git revision", o.baseline)
	}
	if o.regions < 2 || o.regions > len(benchRegions) {
		return o, fmt.Errorf("-regions must be in 2..%d", len(benchRegions))
	}
	def := func(s *string, full, quick string) {
		if *s == "" {
			*s = full
			if o.quick {
				*s = quick
			}
		}
	}
	def(&sizes, "1000,10000", "200,1000")
	def(&sweep, "1,4,8,16,24,32,64", "1,8,32")
	def(&sweepNs, "1000,10000", "1000")
	if o.sizes, err = intList(sizes); err != nil || len(o.sizes) == 0 {
		return o, fmt.Errorf("-n: want a list of positive integers")
	}
	if o.psSizes, err = intList(psSizes); err != nil {
		return o, fmt.Errorf("-ps-n: %v", err)
	}
	if o.psCreateN < 0 {
		return o, fmt.Errorf("-ps-create-n must be >= 0")
	}
	if o.sweep, err = intList(sweep); err != nil {
		return o, fmt.Errorf("-sweep: %v", err)
	}
	if o.sweepNs, err = intList(sweepNs); err != nil {
		return o, fmt.Errorf("-sweep-n: %v", err)
	}
	if o.changedN == 0 {
		o.changedN = o.sizes[len(o.sizes)-1]
	}
	if o.createN == 0 {
		o.createN = 2000
		if o.quick {
			o.createN = 500
		}
	}
	if o.quotaNoopN == 0 {
		o.quotaNoopN = 10000
		if o.quick {
			o.quotaNoopN = 1000
		}
	}
	if o.seqMaxN == 0 {
		o.seqMaxN = max(o.changedN, o.createN, o.sizes[len(o.sizes)-1])
		if o.quick {
			o.seqMaxN = 1000
		}
	}
	if o.valueBytes < 128 {
		return o, fmt.Errorf("-value-bytes must be >= 128")
	}
	if o.root, err = filepath.Abs(o.root); err != nil {
		return o, err
	}
	if _, err := os.Stat(filepath.Join(o.root, "go.mod")); err != nil {
		return o, fmt.Errorf("-root %s has no go.mod", o.root)
	}
	if o.out != "" && !filepath.IsAbs(o.out) {
		o.out = filepath.Join(o.root, o.out)
	}
	if !sectionName.MatchString(o.section) {
		return o, fmt.Errorf("-section: want a plain name such as bench or bench-scale")
	}
	if o.jsonOut == "" && o.out != "" {
		o.jsonOut = filepath.Join(filepath.Dir(o.out), "benchmarks", o.section+".json")
	}
	if o.jsonOut != "" && !filepath.IsAbs(o.jsonOut) {
		o.jsonOut = filepath.Join(o.root, o.jsonOut)
	}
	return o, nil
}
