package chaos

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Config configures a campaign.
type Config struct {
	CLI, Emulator string // built binaries
	// SopsCLI is the real sops binary used to cross-check the in-process
	// encryption on CrossChecks scenarios ("" = no cross-check).
	SopsCLI     string
	CrossChecks int
	Scenarios   int
	Seed        uint64
	Workers     int
	// Only, when >= 0, plays just that scenario index.
	Only      int
	Gen       GenOptions
	WorkDir   string
	Artifacts string
	Progress  io.Writer
	// KeepAll keeps every scenario's artifacts, not only failing ones.
	KeepAll bool
	// Verbose prints every scenario's runs to Progress.
	Verbose bool
	// Rotations is the number of rotation scenarios (GenerateRotation,
	// SPEC §13) played after the others; 0 = none.
	Rotations int
	// PSPrimary is the number of Parameter Store primary scenarios
	// (GeneratePSPrimary, SPEC §16) played after the others; 0 = none.
	PSPrimary int
	// Accounts is the number of many-accounts scenarios
	// (GenerateAccounts, SPEC §17) played after the others; 0 = none.
	Accounts int
}

// Summary aggregates a campaign.
type Summary struct {
	Seed               uint64
	Scenarios, Workers int
	KillPlans, Kills   int
	Converged          int
	Runs               int
	Violations         map[string]int
	Leaks              map[string]int
	HarnessErrors      int
	Faults             map[string]int64 // emulator counters: injected faults by kind, throttled calls
	// Quotas is true when the scenarios drew reduced quotas (-quotas);
	// QuotaRuns and QuotaChanges sum Outcome's; Throttled sums the
	// emulator's throttled calls over every scenario (fault runs' own
	// throttling included).
	Quotas                  bool
	QuotaRuns, QuotaChanges int
	// MetadataRuns sums Outcome's: runs that configured metadata.
	MetadataRuns int
	// ReplicaRuns sums Outcome's: runs that configured replica-regions;
	// ReplicaScenarios counts the scenarios that did.
	ReplicaRuns, ReplicaScenarios int
	// AdoptRuns, HandMade and Adopted sum Outcome's; AdoptScenarios counts
	// the scenarios with secrets made by hand to adopt.
	AdoptRuns, AdoptScenarios, HandMade, Adopted int
	// ScopeScenarios counts the multi-scope scenarios, Siblings their
	// other scopes by bucket kind, AssumeRoles the AssumeRole calls their
	// runs made through the STS recorder.
	ScopeScenarios, AssumeRoles int
	Siblings                    map[string]int
	Throttled                   int64
	// CLIThrottled and CLIWaitMS sum the CLI's logged figures; CLIThrottleLogged
	// says whether any run logged them.
	CLIThrottled, CLIWaitMS int64
	CLIThrottleLogged       bool
	// NoiseCalls and NoiseThrottled sum the other clients' requests and
	// their throttled ones (included in Throttled and Calls).
	NoiseCalls, NoiseThrottled int64
	FaultRuns                  map[string]int // fault runs per configured kind
	Statuses                   map[string]int // outcomes of the fault runs
	Changes                    map[string]int
	PreKinds                   map[string]int
	Calls                      map[string]int64
	Wall                       time.Duration
	SlowestScenario            time.Duration
	Failures                   []Outcome
	ScenariosWithKillFired     int
	CrossChecked               int
	Started                    time.Time
	ToolMS, ProcMS             int64
	ScenarioDurationsSummary   string
	// Rotations counts the rotation scenarios played (SPEC §13), RotationSyncs
	// their syncs; their violations are in Violations.
	Rotations, RotationSyncs int
	// RotationDuring counts the rotation steps played inside a sync's run,
	// by point (AtBeforeRead, AtReadWrite, AtVerify; a point the run never
	// reached is counted under "after"); RotationRefused the steps the
	// emulator refused.
	RotationDuring  map[string]int
	RotationRefused int
	// RotationConverged counts the rotation scenarios whose final sync
	// exited 0.
	RotationConverged int
	// The Parameter Store primary scenarios (PSPrimary, GeneratePSPrimary):
	// PSP counts them, PSPRuns their CLI runs, PSPBig those with a value
	// past the standard tier, PSPConverged those whose final sync and plan
	// exited 0, PSPViolations their violations; PSPTiers counts runs by
	// tier, PSPKMS runs by KMS key setting ("none" when not managed),
	// PSPDescribed runs that configured a description; PSPPuts counts their
	// PutParameter calls by the tier they named ("" none); PSPFaultRuns
	// the runs under faults, PSPDrifts the other writer's changes applied,
	// PSPParams the parameters desired at the end, read back.
	PSP, PSPRuns, PSPBig, PSPConverged, PSPViolations int
	PSPTiers, PSPKMS, PSPPuts                         map[string]int
	PSPDescribed, PSPFaultRuns, PSPDrifts, PSPParams  int
	// The Parameter Store draw (Outcome's PS figures summed): PSScenarios
	// counts the scenarios with a Parameter Store scope, PSRuns their CLI
	// runs, PSViolations the violations found in them.
	PSScenarios, PSRuns, PSViolations          int
	PSKillPlans, PSKills, PSDrifts             int
	PSCalls, PSThrottled, PSScripted, PSParams int64
	// The many-accounts scenarios (Accounts, GenerateAccounts): Acc counts
	// them, AccRuns their syncs, AccConverged those whose two final runs
	// ended as required, AccViolations their violations; AccScopes sums
	// their scopes, AccAccounts their accounts; AccModes counts the
	// (run, account) unreachable draws by way; AccWithin, AccBeyond and
	// AccBroken count the runs with 0 < U ≤ N, U > N and a broken commit;
	// AccKillPlans and AccKills their kill plans and SIGKILLs fired;
	// AccAssumeRoles the AssumeRole calls STS saw.
	Acc, AccRuns, AccConverged, AccViolations int
	AccScopes, AccAccounts                    int
	AccModes                                  map[string]int
	AccWithin, AccBeyond, AccBroken           int
	AccKillPlans, AccKills, AccAssumeRoles    int
}

// Failed reports whether the campaign must fail.
func (s *Summary) Failed() bool {
	return len(s.Violations) > 0 || len(s.Leaks) > 0 || s.HarnessErrors > 0 || s.Converged < s.Scenarios || s.PSPConverged < s.PSP ||
		s.RotationConverged < s.Rotations || s.AccConverged < s.Acc
}

// Total is the number of scenarios of every family: the estate scenarios,
// the rotation scenarios, the Parameter Store primary ones and the
// many-accounts ones.
func (s *Summary) Total() int { return s.Scenarios + s.Rotations + s.PSP + s.Acc }

// RunCampaign plays the campaign and returns its summary.
func RunCampaign(cfg Config) (*Summary, error) {
	start := time.Now()
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o700); err != nil {
		return nil, err
	}
	enc, err := NewEncrypter(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	if cfg.Artifacts != "" && cfg.Only < 0 {
		_ = os.RemoveAll(cfg.Artifacts) // artifacts of an earlier campaign would mislead
	}
	indexes := make(chan int)
	results := make(chan Outcome)
	var players []*Player
	for w := range cfg.Workers {
		p, err := NewPlayer(cfg.CLI, cfg.Emulator, enc, filepath.Join(cfg.WorkDir, fmt.Sprintf("w%d", w)), cfg.Artifacts)
		if err != nil {
			for _, q := range players {
				q.Close()
			}
			return nil, err
		}
		p.KeepAll = cfg.KeepAll
		players = append(players, p)
	}
	defer func() {
		for _, p := range players {
			p.Close()
		}
	}()
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range indexes {
				s, err := Generate(cfg.Seed, i, cfg.Gen)
				if err != nil {
					results <- Outcome{Index: i, Err: err}
					continue
				}
				p.SopsCLI = ""
				if i < cfg.CrossChecks {
					p.SopsCLI = cfg.SopsCLI
				}
				results <- p.Play(s)
			}
		}()
	}
	go func() {
		if cfg.Only >= 0 {
			indexes <- cfg.Only
		} else {
			for i := range cfg.Scenarios {
				indexes <- i
			}
		}
		close(indexes)
		wg.Wait()
		close(results)
	}()

	sum := &Summary{
		Seed: cfg.Seed, Workers: cfg.Workers, Started: start, Quotas: cfg.Gen.Quotas,
		Violations: map[string]int{}, Leaks: map[string]int{}, Faults: map[string]int64{},
		FaultRuns: map[string]int{}, Statuses: map[string]int{}, Changes: map[string]int{},
		PreKinds: map[string]int{}, Calls: map[string]int64{},
	}
	var durations []time.Duration
	for o := range results {
		sum.Scenarios++
		durations = append(durations, o.Duration)
		sum.KillPlans += o.KillPlans
		sum.Kills += o.Kills
		if o.Kills > 0 {
			sum.ScenariosWithKillFired++
		}
		if o.Converged {
			sum.Converged++
		}
		if o.Err == nil && cfg.SopsCLI != "" && o.Index < cfg.CrossChecks {
			sum.CrossChecked++
		}
		sum.Runs += o.Runs
		sum.ToolMS += o.ToolMS
		sum.ProcMS += o.ProcMS
		for _, v := range o.Violations {
			sum.Violations[v.Kind]++
		}
		for _, l := range o.Leaks {
			sum.Leaks[l.Kind]++
		}
		if o.Err != nil {
			sum.HarnessErrors++
		}
		for k, v := range o.Stats.Faults {
			sum.Faults[k] += v
		}
		for k, v := range o.Stats.Throttled {
			sum.Faults["throttled:"+k] += v
			sum.Throttled += v
		}
		sum.QuotaRuns += o.QuotaRuns
		sum.MetadataRuns += o.MetadataRuns
		sum.ReplicaRuns += o.ReplicaRuns
		if o.ReplicaRuns > 0 {
			sum.ReplicaScenarios++
		}
		sum.AdoptRuns += o.AdoptRuns
		if len(o.SiblingKinds) > 0 {
			sum.ScopeScenarios++
			if sum.Siblings == nil {
				sum.Siblings = map[string]int{}
			}
			for _, k := range o.SiblingKinds {
				sum.Siblings[k]++
			}
			for k, n := range o.SiblingDraws {
				sum.Siblings["draw:"+k] += n
			}
			sum.AssumeRoles += o.AssumeRoles
		}
		if o.PS {
			sum.PSScenarios++
			sum.PSRuns += o.Runs
			sum.PSViolations += len(o.Violations)
			sum.PSKillPlans += o.PSKillPlans
			sum.PSKills += o.PSKills
			sum.PSDrifts += o.PSDrifts
			sum.PSCalls += o.PSCalls
			sum.PSThrottled += o.PSThrottled
			sum.PSScripted += o.PSScripted
			sum.PSParams += o.PSParams
		}
		sum.HandMade += o.HandMade
		sum.Adopted += o.Adopted
		if o.HandMade > 0 {
			sum.AdoptScenarios++
		}
		sum.QuotaChanges += o.QuotaChanges
		sum.CLIThrottled += o.CLIThrottled
		sum.CLIWaitMS += o.CLIWaitMS
		sum.CLIThrottleLogged = sum.CLIThrottleLogged || o.CLIThrottleLogged
		sum.NoiseCalls += o.NoiseCalls
		sum.NoiseThrottled += o.NoiseThrottled
		for k, v := range o.Stats.Calls {
			sum.Calls[k] += v
		}
		for k, v := range o.FaultKinds {
			sum.FaultRuns[k] += v
		}
		for k, v := range o.Statuses {
			sum.Statuses[k] += v
		}
		for k, v := range o.Changes {
			sum.Changes[k] += v
		}
		for k, v := range o.PreKinds {
			sum.PreKinds[k] += v
		}
		if o.Failed() {
			sum.Failures = append(sum.Failures, o)
		}
		if cfg.Progress != nil {
			if cfg.Verbose {
				fmt.Fprintf(cfg.Progress, "scenario %d %s\n  %s\n", o.Index, o.Duration.Round(time.Millisecond), strings.Join(o.RunLines, "\n  "))
			}
			if o.Failed() {
				fmt.Fprintf(cfg.Progress, "scenario %d FAILED (%s)\n", o.Index, describe(o))
			}
			if sum.Scenarios%25 == 0 {
				fmt.Fprintf(cfg.Progress, "%d scenarios, %d kills, %d converged, %s\n", sum.Scenarios, sum.Kills, sum.Converged, time.Since(start).Round(time.Second))
			}
		}
	}
	if cfg.Only < 0 {
		if err := runExtras(cfg, enc, sum); err != nil {
			return nil, err
		}
	}
	sort.Slice(sum.Failures, func(i, j int) bool { return sum.Failures[i].Index < sum.Failures[j].Index })
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	if n := len(durations); n > 0 {
		sum.SlowestScenario = durations[n-1]
		sum.ScenarioDurationsSummary = fmt.Sprintf("median %s, p95 %s, max %s",
			durations[n/2].Round(time.Millisecond), durations[n*95/100].Round(time.Millisecond), durations[n-1].Round(time.Millisecond))
	}
	sum.Wall = time.Since(start)
	return sum, nil
}

func describe(o Outcome) string {
	var parts []string
	for _, v := range o.Violations {
		parts = append(parts, v.String())
	}
	for _, l := range o.Leaks {
		parts = append(parts, "leak "+l.String())
	}
	if o.Err != nil {
		parts = append(parts, "harness: "+o.Err.Error())
	}
	if o.Artifacts != "" {
		parts = append(parts, "artifacts "+o.Artifacts)
	}
	return strings.Join(parts, "; ")
}

// extraJob is one scenario of a family played after the estate scenarios:
// a rotation scenario, a Parameter Store primary one or a many-accounts
// one.
type extraJob struct {
	family string // "rotation", "psp" or "accounts"
	index  int
}

// runExtras plays cfg.Rotations rotation scenarios and cfg.PSPrimary
// Parameter Store primary scenarios on cfg.Workers workers (each its own
// emulator process per scenario) and adds them to sum.
func runExtras(cfg Config, enc *Encrypter, sum *Summary) error {
	jobs := make(chan extraJob)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				dir := filepath.Join(cfg.WorkDir, fmt.Sprintf("%s-%d", j.family, j.index))
				if err := os.MkdirAll(dir, 0o700); err != nil {
					mu.Lock()
					sum.HarnessErrors++
					mu.Unlock()
					continue
				}
				switch j.family {
				case "rotation":
					rs := GenerateRotation(cfg.Seed, j.index)
					obs, err := PlayRotation(cfg.CLI, cfg.Emulator, enc, dir, rs)
					mu.Lock()
					sum.addRotation(cfg, j.index, rs, obs, err)
					mu.Unlock()
				case "accounts":
					as, err := GenerateAccounts(cfg.Seed, j.index)
					var ev AccEvidence
					if err == nil {
						ev, err = PlayAccounts(cfg.CLI, cfg.Emulator, enc, dir, as)
					}
					mu.Lock()
					sum.addAccounts(cfg, j.index, as, ev, err)
					mu.Unlock()
				default:
					ps, err := GeneratePSPrimary(cfg.Seed, j.index)
					var ev Evidence
					if err == nil {
						ev, err = PlayPSPrimary(cfg.CLI, cfg.Emulator, enc, dir, ps)
					}
					mu.Lock()
					sum.addPSPrimary(cfg, j.index, ps, ev, err)
					mu.Unlock()
				}
				_ = os.RemoveAll(dir)
			}
		}()
	}
	for i := range max(cfg.Rotations, cfg.PSPrimary, cfg.Accounts) {
		if i < cfg.Rotations {
			jobs <- extraJob{family: "rotation", index: i}
		}
		if i < cfg.PSPrimary {
			jobs <- extraJob{family: "psp", index: i}
		}
		if i < cfg.Accounts {
			jobs <- extraJob{family: "accounts", index: i}
		}
	}
	close(jobs)
	wg.Wait()
	return nil
}

// addRotation adds rotation scenario i to s (the caller holds the lock).
func (s *Summary) addRotation(cfg Config, i int, rs RotScenario, obs []RotObservation, err error) {
	s.Rotations++
	if err != nil {
		s.HarnessErrors++
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "rotation scenario %d: harness error: %v\n", i, err)
		}
		return
	}
	for _, o := range obs {
		if o.Event.Sync {
			s.RotationSyncs++
		}
		if o.Event.Sync && o.Event.Step != "" && !o.Skipped {
			if s.RotationDuring == nil {
				s.RotationDuring = map[string]int{}
			}
			if o.Fired {
				s.RotationDuring[o.Event.At]++
			} else {
				s.RotationDuring["after"]++
			}
		}
		if o.Refused != "" {
			s.RotationRefused++
		}
	}
	if n := len(obs); n > 0 && obs[n-1].Event.Final && obs[n-1].Code == 0 {
		s.RotationConverged++
	}
	s.tally(cfg, "rotation", i, "aws-owned-leak", CheckRotation(rs, obs), nil)
}

// tally counts a scenario's violations of one family: leakKind as a leak,
// every other kind as a violation (and in family, when not nil), each
// reported on cfg.Progress.
func (s *Summary) tally(cfg Config, name string, i int, leakKind string, vs []Violation, family *int) {
	for _, v := range vs {
		if v.Kind == leakKind {
			s.Leaks[v.Kind]++
		} else {
			s.Violations[v.Kind]++
			if family != nil {
				*family++
			}
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "%s scenario %d FAILED: %s\n", name, i, v)
		}
	}
}

// addPSPrimary adds Parameter Store primary scenario i to s (the caller
// holds the lock).
func (s *Summary) addPSPrimary(cfg Config, i int, ps PSPScenario, ev Evidence, err error) {
	s.PSP++
	if err != nil {
		s.HarnessErrors++
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "Parameter Store primary scenario %d: harness error: %v\n", i, err)
		}
		return
	}
	if s.PSPTiers == nil {
		s.PSPTiers, s.PSPKMS, s.PSPPuts = map[string]int{}, map[string]int{}, map[string]int{}
	}
	s.PSPRuns += len(ev.Runs)
	if ps.Big {
		s.PSPBig++
	}
	final := 0
	for k, rr := range ev.Runs {
		run := ps.Runs[k]
		s.PSPTiers[run.Tier]++
		kms := "none"
		if m := run.Metadata; m != nil && m.KMSKeyID != "" {
			kms = m.KMSKeyID
		}
		s.PSPKMS[kms]++
		if run.Metadata != nil && run.Metadata.Description != "" {
			s.PSPDescribed++
		}
		if len(run.Faults.Script) > 0 || run.Faults.AmbiguousRate > 0 || run.Faults.ErrorRate > 0 {
			s.PSPFaultRuns++
		}
		if run.Final && rr.Exit == 0 {
			final++
		}
	}
	if final == 2 {
		s.PSPConverged++
	}
	for _, d := range ev.PSDrifts {
		if d.Applied {
			s.PSPDrifts++
		}
	}
	for _, c := range ev.Calls {
		if c.Service == "ssm" && c.Op == "PutParameter" {
			s.PSPPuts[c.Tier]++
		}
	}
	s.PSPParams += len(ps.Scope.Docs[len(ps.Scope.Docs)-1])
	vs := CheckPSPrimary(ps, ev)
	s.tally(cfg, "Parameter Store primary", i, "psp-leak", vs, &s.PSPViolations)
	if len(vs) > 0 && cfg.Artifacts != "" {
		keepPSPrimary(cfg.Artifacts, i, ps, ev)
	}
}

// keepPSPrimary writes a failing Parameter Store primary scenario's runs
// (outputs and reports, never a key) under artifacts/psp-N.
func keepPSPrimary(artifacts string, i int, ps PSPScenario, ev Evidence) {
	keepRuns(filepath.Join(artifacts, fmt.Sprintf("psp-%d", i)), ev.Runs, func(k int, rr RunResult) string {
		run := ps.Runs[k]
		return fmt.Sprintf("%s revision %d tier %s metadata %+v max-deletions %v faults %+v final %v exit %d\n",
			run.Command, run.Revision, run.Tier, run.Metadata, run.MaxDeletions != nil, run.Faults, run.Final, rr.Exit)
	})
}

// keepRuns writes each run's outputs and report (never a key) to
// dir/run-N.txt, under the line head gives it.
func keepRuns(dir string, runs []RunResult, head func(k int, rr RunResult) string) {
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	for k, rr := range runs {
		body := bytes.Join([][]byte{[]byte(head(k, rr)), rr.Stdout, rr.Stderr, rr.Report}, []byte("\n"))
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("run-%d.txt", k+1)), body, 0o644)
	}
}

// addAccounts adds many-accounts scenario i to s (the caller holds the
// lock).
func (s *Summary) addAccounts(cfg Config, i int, as AccScenario, ev AccEvidence, err error) {
	s.Acc++
	if err != nil {
		s.HarnessErrors++
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "many-accounts scenario %d: harness error: %v\n", i, err)
		}
		return
	}
	if s.AccModes == nil {
		s.AccModes = map[string]int{}
	}
	s.AccRuns += len(ev.Runs)
	s.AccScopes += len(as.Scopes)
	s.AccAccounts += as.Accounts
	for k, run := range as.Runs {
		for _, m := range run.Unreachable {
			s.AccModes[m]++
		}
		u := as.UnreachableScopes(run)
		switch {
		case u > run.Max:
			s.AccBeyond++
		case u > 0:
			s.AccWithin++
		}
		if run.Broken {
			s.AccBroken++
		}
		if run.Kill != nil {
			s.AccKillPlans++
			if k < len(ev.Runs) && ev.Runs[k].Killed {
				s.AccKills++
			}
		}
	}
	for _, c := range ev.STS {
		if c.Action == "AssumeRole" {
			s.AccAssumeRoles++
		}
	}
	vs := CheckAccounts(as, ev)
	final := 0
	for k, rr := range ev.Runs {
		if as.Runs[k].Final && (rr.Exit == 0 || rr.Exit == 5) {
			final++
		}
	}
	if final == 2 && !slices.ContainsFunc(vs, func(v Violation) bool { return v.Kind == "acc-no-convergence" }) {
		s.AccConverged++
	}
	s.tally(cfg, "many-accounts", i, "acc-leak", vs, &s.AccViolations)
	if len(vs) > 0 && cfg.Artifacts != "" {
		keepAccounts(cfg.Artifacts, i, as, ev)
	}
}

// keepAccounts writes a failing many-accounts scenario's runs (outputs
// and reports, never a key) under artifacts/accounts-N.
func keepAccounts(artifacts string, i int, as AccScenario, ev AccEvidence) {
	keepRuns(filepath.Join(artifacts, fmt.Sprintf("accounts-%d", i)), ev.Runs, func(k int, rr RunResult) string {
		run := as.Runs[k]
		return fmt.Sprintf("revision %d broken %v unreachable %v max %d kill %v final %v exit %d killed %v\n",
			run.Revision, run.Broken, run.Unreachable, run.Max, run.Kill, run.Final, rr.Exit, rr.Killed)
	})
}
