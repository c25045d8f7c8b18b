package chaos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Outcome is the result of one scenario.
type Outcome struct {
	Index      int
	Violations []Violation
	Leaks      []Leak
	// KillPlans counts runs with a kill plan; Kills those whose kill fired.
	KillPlans, Kills int
	// Converged is true when the final sync exited 0 with status converged.
	Converged bool
	// Stats are the emulator's counters over the whole scenario.
	Stats emulator.Stats
	// QuotaRuns counts the runs played under a QuotaPlan; QuotaChanges those
	// whose quota changed while the CLI ran.
	QuotaRuns, QuotaChanges int
	// MetadataRuns counts the runs that configured metadata.
	MetadataRuns int
	// ReplicaRuns counts the runs that configured replica-regions.
	ReplicaRuns int
	// AdoptRuns counts the runs that named secrets in adopt; HandMade the
	// scenario's secrets made by hand that runs may adopt, Adopted those
	// that carry this scope's ownership tags at the end (SPEC §11).
	AdoptRuns, HandMade, Adopted int
	// SiblingKinds are the bucket kinds of the scenario's other scopes
	// (none for a single-scope scenario); AssumeRoles counts the STS
	// AssumeRole calls its runs made.
	SiblingKinds []string
	AssumeRoles  int
	// SiblingDraws counts the other scopes by estate draw: "replicas",
	// "whole" (whole-value documents), "adopt" (a secret made by hand),
	// "drift" (an out-of-band value change).
	SiblingDraws map[string]int
	// CLIThrottled and CLIWaitMS sum what the CLI's phase records say it was
	// throttled and waited for its pace (cliThrottling); CLIThrottleLogged
	// is false when no record carried those fields.
	CLIThrottled, CLIWaitMS int64
	CLIThrottleLogged       bool
	// NoiseCalls and NoiseThrottled count the other clients' requests
	// (QuotaPlan.Share) and those the quotas refused: in Stats too.
	NoiseCalls, NoiseThrottled int64
	// FaultKinds counts fault runs per configured kind.
	FaultKinds map[string]int
	// Statuses counts the report status (or "killed") of every fault run.
	Statuses map[string]int
	Changes  map[string]int
	PreKinds map[string]int
	Runs     int
	// ToolMS sums the reports' duration_ms; ProcMS the CLI processes' wall
	// time (the difference is process start-up, decryption setup and exit).
	ToolMS, ProcMS int64
	// RunLines describe each run: command, kill plan, outcome, duration.
	RunLines []string
	Duration time.Duration
	// Artifacts is where the evidence was kept (failing scenarios only).
	Artifacts string
	// Err is a harness failure (the scenario could not be played).
	Err error
	// The Parameter Store draw: PS is set when the scenario has a
	// Parameter Store scope; PSCalls counts the SSM calls its runs made
	// (the proxy's record), PSThrottled those the emulator throttled,
	// PSScripted the scripted SSM faults, PSKillPlans and PSKills the
	// kill plans aimed at SSM writes and those that fired, PSDrifts the
	// out-of-band changes applied, PSParams the parameters the final
	// revision desires.
	PS                                         bool
	PSCalls, PSThrottled, PSScripted, PSParams int64
	PSKillPlans, PSKills, PSDrifts             int
}

// Failed reports whether the scenario broke an invariant, leaked, or could
// not be played.
func (o Outcome) Failed() bool { return len(o.Violations) > 0 || len(o.Leaks) > 0 || o.Err != nil }

// Player plays scenarios against one emulator process through one proxy.
type Player struct {
	CLI       string
	Enc       *Encrypter
	Emu       *Emu
	Proxy     *Proxy
	Dir       string // scratch space of this player
	Artifacts string // where failing scenarios are kept ("" = not kept)
	// KeepAll keeps the artifacts of passing scenarios too.
	KeepAll bool
	// SopsCLI, when set, decrypts the first document of the scenario with the
	// real sops binary and compares it with the in-process encryption's input.
	SopsCLI string

	cred   [3]string // access key id, secret key, session token
	encMu  sync.Mutex
	encMap map[string][]byte
	// keySvc stands for every key service a planted stanza names (Vault,
	// STS and KMS for a KMS key with a role): a loopback listener that
	// records requests. The default --key-services allows none of them.
	keySvc *KeyServiceListener
	// sts records the STS calls of multi-scope runs on their way to the
	// emulator (checkScopes allows only the tool's own).
	sts *STSRecorder
}

// NewPlayer starts an emulator process and a proxy in front of it.
func NewPlayer(cli, emuBin string, enc *Encrypter, dir, artifacts string) (*Player, error) {
	emu, err := StartEmulator(emuBin)
	if err != nil {
		return nil, err
	}
	px, err := NewProxy(emu.URL)
	if err != nil {
		emu.Close()
		return nil, err
	}
	sts, err := NewSTSRecorder(emu.URL)
	if err != nil {
		px.Close()
		emu.Close()
		return nil, err
	}
	p := &Player{CLI: cli, Enc: enc, Emu: emu, Proxy: px, Dir: dir, Artifacts: artifacts, encMap: map[string][]byte{},
		keySvc: NewKeyServiceListener(), sts: sts}
	p.cred = [3]string{"AKIACHAOS" + newToken()[:11], "chaos-secret-" + newToken(), "chaos-session-" + newToken()}
	return p, nil
}

// Close stops the proxy and the emulator.
func (p *Player) Close() {
	p.keySvc.Close()
	p.sts.Close()
	p.Proxy.Close()
	p.Emu.Close()
}

func (p *Player) encrypt(d Doc) ([]byte, error) {
	key := d.Path + "\x00" + d.Planted + "\x00" + string(d.Plain)
	p.encMu.Lock()
	b, ok := p.encMap[key]
	p.encMu.Unlock()
	if ok {
		return b, nil
	}
	b, err := p.Enc.EncryptPlanting(d, p.keySvc.URL)
	if err != nil {
		return nil, err
	}
	p.encMu.Lock()
	p.encMap[key] = b
	p.encMu.Unlock()
	return b, nil
}

// Play runs scenario s and judges it.
func (p *Player) Play(s *Scenario) (o Outcome) {
	start := time.Now()
	o = Outcome{Index: s.Index, FaultKinds: map[string]int{}, Statuses: map[string]int{}, Changes: s.Changes, PreKinds: map[string]int{}}
	defer func() { o.Duration = time.Since(start) }()
	for _, pr := range s.Pre {
		o.PreKinds[pr.Kind]++
	}
	dir := filepath.Join(p.Dir, fmt.Sprintf("scenario-%05d", s.Index))
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o700); err != nil {
		o.Err = err
		return o
	}
	p.encMap = map[string][]byte{}
	ev, err := p.play(s, dir, &o)
	if err != nil {
		o.Err = err
	}
	for _, b := range s.Siblings {
		o.SiblingKinds = append(o.SiblingKinds, b.Kind)
		if b.PS() {
			continue // its draws are the Parameter Store figures
		}
		if o.SiblingDraws == nil {
			o.SiblingDraws = map[string]int{}
		}
		for draw, n := range map[string]int{"replicas": len(b.Replicas), "whole": b.Whole, "adopt": len(b.Pre), "drift": b.Drifted} {
			if n > 0 {
				o.SiblingDraws[draw]++
			}
		}
	}
	if ev != nil {
		for _, c := range ev.STS {
			if c.Action == "AssumeRole" {
				o.AssumeRoles++
			}
		}
		o.HandMade, o.Adopted = adoptions(s, ev.Post)
		psOutcome(s, ev, &o)
		o.Violations = Check(*ev)
		o.Leaks = ScanRuns(ev.Runs, p.needles(s, ev), nameNeedles(s), s.ShowResourceNames)
	}
	if (o.Failed() || p.KeepAll) && p.Artifacts != "" {
		o.Artifacts = filepath.Join(p.Artifacts, fmt.Sprintf("scenario-%05d", s.Index))
		_ = os.RemoveAll(o.Artifacts)
		if err := keepArtifacts(o.Artifacts, dir, s, ev, o); err != nil && o.Err == nil {
			o.Err = fmt.Errorf("failed to keep artifacts: %w", err)
		}
	}
	_ = os.RemoveAll(dir)
	return o
}

func (p *Player) play(s *Scenario, dir string, o *Outcome) (*Evidence, error) {
	// The repository: every revision, documents encrypted in process.
	var commits []map[string][]byte
	for ri, rev := range s.Revisions {
		files := map[string][]byte{}
		for _, b := range s.Siblings {
			for path, d := range b.Docs[ri] {
				enc, err := p.encrypt(d)
				if err != nil {
					return nil, err
				}
				files[path] = enc
			}
		}
		for path, d := range rev.Docs {
			b, err := p.encrypt(d)
			if err != nil {
				return nil, err
			}
			files[path] = b
		}
		for path, d := range rev.Outside {
			b, err := p.encrypt(d)
			if err != nil {
				return nil, err
			}
			files[path] = b
		}
		for path, b := range rev.Plain {
			files[path] = b
		}
		commits = append(commits, files)
	}
	repoDir := filepath.Join(dir, "repo")
	shas, err := WriteRepo(repoDir, commits)
	if err != nil {
		return nil, err
	}
	if err := WriteJunk(repoDir, cleanRoot(s.Scope.SourceRoot)); err != nil {
		return nil, err
	}
	if p.SopsCLI != "" {
		if err := p.crossCheck(s, dir); err != nil {
			return nil, err
		}
	}

	// The starting AWS state. With a lagging list in the first run, the
	// seeded secrets are recent enough to be missing from the list.
	ctx := context.Background()
	seedFaults := emulator.Faults{ListLagMS: s.Runs[0].Faults.ListLagMS}
	if err := p.Emu.SetFaults(ctx, emulator.Faults{}); err != nil {
		return nil, err
	}
	if err := p.Emu.Reset(ctx); err != nil {
		return nil, err
	}
	if err := p.Emu.SetFaults(ctx, seedFaults); err != nil {
		return nil, err
	}
	if err := p.Emu.Seed(s.Pre); err != nil {
		return nil, err
	}
	for _, b := range s.Siblings {
		if err := p.Emu.Seed(b.Pre); err != nil {
			return nil, err
		}
		if err := p.Emu.SeedPS(b.PSPre); err != nil {
			return nil, err
		}
	}
	ev := &Evidence{Scenario: s}
	if ev.Pre, err = p.Emu.State(ctx); err != nil {
		return nil, err
	}
	p.Proxy.Reset()
	p.sts.Take()

	for i, run := range s.Runs {
		if err := p.Emu.SetFaults(ctx, emulator.Faults{}); err != nil {
			return ev, err
		}
		for _, d := range run.Drift {
			ad := AppliedDrift{Drift: d, Run: i + 1, Applied: p.Emu.ApplyDrift(d) == nil}
			ev.Drifts = append(ev.Drifts, ad)
			if ad.Applied {
				o.FaultKinds["out-of-band-"+d.Kind]++
			}
		}
		if b, ok := psSibling(s); ok {
			for _, d := range b.PSDrift[i] {
				ad := AppliedDrift{Drift: d, Run: i + 1, Applied: p.Emu.ApplyPSDrift(d) == nil}
				ev.PSDrifts = append(ev.PSDrifts, ad)
				if ad.Applied {
					o.PSDrifts++
				}
			}
		}
		if err := p.Emu.SetFaults(ctx, run.Faults); err != nil {
			return ev, err
		}
		if q := run.Quotas; q != nil {
			if err := p.Emu.SetQuotas(ctx, emulator.Quotas{Quotas: true, QuotaScale: q.Scale, QuotaScales: q.SSMScales}); err != nil {
				return ev, err
			}
			o.QuotaRuns++
		}
		if run.Metadata != nil {
			o.MetadataRuns++
		}
		if len(run.Replicas) > 0 {
			o.ReplicaRuns++
		}
		if len(run.Adopt) > 0 {
			o.AdoptRuns++
		}
		var noise *Noise
		if q := run.Quotas; q != nil && q.Share > 0 {
			noise = p.Emu.StartNoise(q.Scale, q.Share)
		}
		rr, err := p.runCLI(s, i, run, dir, repoDir, shas, noise)
		if noise != nil {
			noise.Stop()
			o.NoiseCalls += noise.Calls.Load()
			o.NoiseThrottled += noise.Throttled.Load()
		}
		if err != nil {
			return ev, err
		}
		if rr.QuotaChanged {
			o.QuotaChanges++
		}
		if th, ok := cliThrottling(rr.Stdout); ok {
			o.CLIThrottleLogged = true
			o.CLIThrottled += th.Throttled
			o.CLIWaitMS += th.WaitMS
		}
		ev.Runs = append(ev.Runs, rr)
		o.ProcMS += rr.Duration.Milliseconds()
		if rr.Report != nil {
			var rep struct {
				DurationMS int64 `json:"duration_ms"`
			}
			if jsonUnmarshal(rr.Report, &rep) == nil {
				o.ToolMS += rep.DurationMS
			}
		}
		line := fmt.Sprintf("%s rev%d %s exit=%d %s", run.Command, run.Revision, runStatus(rr), rr.Exit, rr.Duration.Round(time.Millisecond))
		if run.Kill != nil {
			line += " kill=" + run.Kill.String()
		}
		if run.Metadata != nil {
			line += " metadata"
		}
		if len(run.Replicas) > 0 {
			line += " replicas=" + strings.Join(model.ReplicaRegionsOf(run.Replicas), ",")
		}
		if run.MaxDeletions != nil {
			line += fmt.Sprintf(" max-deletions=%d", *run.MaxDeletions)
		}
		if len(run.Adopt) > 0 {
			line += fmt.Sprintf(" adopt=%d", len(run.Adopt))
		}
		if run.MaxAttempts > 0 {
			line += fmt.Sprintf(" max-attempts=%d", run.MaxAttempts)
		}
		if k := faultKinds(run.Faults); len(k) > 0 {
			line += fmt.Sprintf(" faults=%v", k)
		}
		if run.Quotas != nil {
			line += " " + run.Quotas.String()
			if run.Quotas.ChangeAtCall > 0 && !rr.QuotaChanged {
				line += "(not reached)"
			}
		}
		o.RunLines = append(o.RunLines, line)
		if run.Kill != nil {
			o.KillPlans++
			if rr.Killed {
				o.Kills++
			}
			if run.Kill.Service == "ssm" {
				o.PSKillPlans++
				if rr.Killed {
					o.PSKills++
				}
			}
		}
		if !run.Final {
			for _, k := range faultKinds(run.Faults) {
				o.FaultKinds[k]++
			}
			o.Statuses[runStatus(rr)]++
		}
	}
	o.Runs = len(s.Runs)
	if err := p.Emu.SetFaults(ctx, emulator.Faults{}); err != nil {
		return ev, err
	}
	ev.Calls = p.Proxy.Calls()
	ev.STS = p.sts.Take()
	if ev.Post, err = p.Emu.State(ctx); err != nil {
		return ev, err
	}
	if _, ok := psSibling(s); ok {
		if ev.PSFinal, err = p.Emu.ReadParameters(ctx); err != nil {
			return ev, fmt.Errorf("failed to read the parameters with the SSM client: %w", err)
		}
	}
	if o.Stats, err = p.Emu.Stats(ctx); err != nil {
		return ev, err
	}
	for _, rr := range ev.Runs {
		if rr.Run.Final && rr.Run.Command == "sync" && rr.Exit == 0 {
			o.Converged = true
		}
	}
	// The recovery window, by the emulator clock (purges what it checks,
	// so it comes last).
	w := time.Duration(s.RecoveryWindowDays) * 24 * time.Hour
	if _, err := p.Emu.AdvanceClock(ctx, w-time.Hour); err != nil {
		return ev, err
	}
	before, err := p.Emu.State(ctx)
	if err != nil {
		return ev, err
	}
	if _, err := p.Emu.AdvanceClock(ctx, 2*time.Hour); err != nil {
		return ev, err
	}
	after, err := p.Emu.State(ctx)
	if err != nil {
		return ev, err
	}
	ev.BeforePurge, ev.AfterPurge = &before, &after
	return ev, nil
}

func runStatus(rr RunResult) string {
	if rr.Killed {
		return "killed"
	}
	if rr.Report == nil {
		return fmt.Sprintf("exit-%d-no-report", rr.Exit)
	}
	var st struct {
		Status string `json:"status"`
	}
	if err := jsonUnmarshal(rr.Report, &st); err != nil {
		return "bad-report"
	}
	return rr.Run.Command + ":" + st.Status
}

// runCLI plays run i of s and returns what it left.
func (p *Player) runCLI(s *Scenario, i int, run Run, dir, repoDir string, shas []string, noise *Noise) (RunResult, error) {
	sha := shas[run.Revision]
	revArg := sha
	switch (s.Index + i) % 4 {
	case 1:
		revArg = "rev-" + strconv.Itoa(run.Revision)
	case 2:
		if run.Revision == len(shas)-1 {
			revArg = "HEAD"
		}
	}
	reportFile := filepath.Join(dir, fmt.Sprintf("report-%d.json", i+1))
	args := []string{run.Command,
		"--repository", repoDir,
		"--revision", revArg,
		"--report-file", reportFile,
		"--concurrency", strconv.Itoa(max(1, run.Concurrency)),
		"--log-level", "debug",
		"--aws-max-backoff", "50ms",
	}
	if run.Final {
		// Generous bounds: a loaded CI machine must not turn into a finding.
		args = append(args, "--run-timeout", "60s", "--verification-timeout", "15s", "--operation-timeout", "10s")
	} else {
		args = append(args, "--run-timeout", "8s", "--verification-timeout", "2s", "--operation-timeout", "2s")
	}
	multi := len(s.Siblings) > 0
	if multi {
		// Every per-scope setting goes into the config file (a per-scope
		// flag beside scopes: is exit 3).
		cfg := filepath.Join(dir, fmt.Sprintf("config-%d.yaml", i+1))
		if err := os.WriteFile(cfg, scopesConfig(s, i), 0o600); err != nil {
			return RunResult{}, err
		}
		args = append(args, "--config", cfg)
	} else {
		args = append(args,
			"--repository-id", s.Scope.RepositoryID,
			"--source-root", s.Scope.SourceRoot,
			"--secret-prefix", s.PrefixArg,
			"--recovery-window-days", strconv.Itoa(s.RecoveryWindowDays),
			"--aws-region", ChaosRegion)
	}
	if m := run.Metadata; m != nil && !multi {
		if m.KMSKeyID != "" {
			args = append(args, "--kms-key-id", m.KMSKeyID)
		}
		if m.Description != "" {
			args = append(args, "--description", m.Description)
		}
		for _, k := range slices.Sorted(maps.Keys(m.Tags)) {
			args = append(args, "--tag", k+"="+m.Tags[k])
		}
	}
	if run.MaxAttempts > 0 {
		args = append(args, "--aws-max-attempts", strconv.Itoa(run.MaxAttempts))
	}
	if len(run.Replicas) > 0 && !multi {
		args = append(args, "--replica-regions", strings.Join(model.ReplicaRegionsOf(run.Replicas), ","))
	}
	if run.MaxDeletions != nil && !multi {
		args = append(args, "--max-deletions", strconv.Itoa(*run.MaxDeletions))
	}
	for _, n := range run.Adopt {
		if !multi {
			args = append(args, "--adopt", n)
		}
	}
	if s.ShowResourceNames {
		args = append(args, "--show-resource-names")
	}
	if s.AllowEmpty && !multi {
		args = append(args, "--allow-empty")
	}
	if run.Command == "plan" {
		args = append(args, "--detailed-exit-code")
	}
	cmd := exec.Command(p.CLI, args...)
	home := filepath.Join(dir, "home")
	cmd.Env = []string{
		"HOME=" + home,
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + p.Proxy.URL,
		"AWS_ENDPOINT_URL_SSM=" + p.Proxy.URL,
		"AWS_SDK_UA_APP_ID=" + RunAppID(i+1),
		"AWS_ACCESS_KEY_ID=" + p.cred[0],
		"AWS_SECRET_ACCESS_KEY=" + p.cred[1],
		"AWS_SESSION_TOKEN=" + p.cred[2],
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(home, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "no-aws-credentials"),
		"SOPS_AGE_KEY_FILE=" + p.Enc.KeyFile,
		// What a planted stanza would take: the runner's Vault token, and
		// AWS endpoints for the STS AssumeRole and KMS Decrypt of a KMS
		// key with a role, all at the recording listener.
		"VAULT_TOKEN=" + VaultTokenCanary,
		"AWS_ENDPOINT_URL_STS=" + p.keySvc.URL,
		"AWS_ENDPOINT_URL_KMS=" + p.keySvc.URL,
	}
	if multi {
		// The tool's own STS calls (GetCallerIdentity, AssumeRole of a
		// scope's role) reach the emulator through the recorder; a planted
		// stanza's would too, and checkScopes reports it (sts-foreign).
		for k, v := range cmd.Env {
			if strings.HasPrefix(v, "AWS_ENDPOINT_URL_STS=") {
				cmd.Env[k] = "AWS_ENDPOINT_URL_STS=" + p.sts.URL
			}
		}
	}
	p.sts.Arm(i + 1)
	keyCalls := p.keySvc.Requests()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr

	started := make(chan struct{})
	var killOnce sync.Once
	fired := false
	var firedMu sync.Mutex
	kill := func() {
		<-started
		killOnce.Do(func() {
			firedMu.Lock()
			fired = true
			firedMu.Unlock()
			_ = cmd.Process.Signal(syscall.SIGKILL)
		})
	}
	var proxyPlan *KillPlan
	if run.Kill != nil && run.Kill.Mode != "delay" {
		proxyPlan = run.Kill
	}
	p.Proxy.Arm(i+1, proxyPlan, kill)
	var quotaChanged bool
	var quotaErr error
	if q := run.Quotas; q != nil && q.ChangeAtCall > 0 {
		p.Proxy.OnCall(q.ChangeAtCall, func() {
			quotaErr = p.Emu.SetQuotas(context.Background(), emulator.Quotas{Quotas: true, QuotaScale: q.ChangeTo, QuotaScales: q.SSMScales})
			quotaChanged = quotaErr == nil
			if quotaChanged && noise != nil {
				noise.SetScale(q.ChangeTo)
			}
		})
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		close(started)
		return RunResult{}, fmt.Errorf("failed to start the CLI: %w", err)
	}
	close(started)
	var timer *time.Timer
	if run.Kill != nil && run.Kill.Mode == "delay" {
		timer = time.AfterFunc(time.Duration(run.Kill.DelayMS)*time.Millisecond, kill)
	}
	werr := cmd.Wait()
	if timer != nil {
		timer.Stop()
	}
	dur := time.Since(t0)
	p.Proxy.Drain()
	p.Proxy.Arm(0, nil, nil)

	if quotaErr != nil {
		return RunResult{}, fmt.Errorf("failed to change the quotas during the run: %w", quotaErr)
	}
	rr := RunResult{Run: run, Revision: sha, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: dur, QuotaChanged: quotaChanged,
		KeyServiceRequests: p.keySvc.Requests() - keyCalls}
	rr.Exit = cmd.ProcessState.ExitCode()
	firedMu.Lock()
	rr.Killed = fired && rr.Exit == -1
	firedMu.Unlock()
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return rr, fmt.Errorf("failed to run the CLI: %w", werr)
	}
	if b, err := os.ReadFile(reportFile); err == nil {
		rr.Report = b
	}
	return rr, nil
}

// crossCheck decrypts the scenario's first document with the real sops
// binary and compares the canonical value with the generator's.
func (p *Player) crossCheck(s *Scenario, dir string) error {
	rev := s.Revisions[len(s.Revisions)-1]
	keys := sortedKeys(rev.Docs)
	if len(keys) == 0 {
		return nil
	}
	d := rev.Docs[keys[0]]
	enc, err := p.encrypt(d)
	if err != nil {
		return err
	}
	f := filepath.Join(dir, "crosscheck"+filepath.Ext(d.Path))
	if err := os.WriteFile(f, enc, 0o600); err != nil {
		return err
	}
	typ := map[canonical.Format]string{canonical.JSON: "json", canonical.YAML: "yaml", canonical.Dotenv: "dotenv",
		canonical.Text: "binary", canonical.Binary: "binary"}[d.Format]
	cmd := exec.Command(p.SopsCLI, "--disable-version-check", "decrypt", "--input-type", typ, "--output-type", typ, f)
	cmd.Env = []string{"HOME=" + filepath.Join(dir, "home"), "SOPS_AGE_KEY_FILE=" + p.Enc.KeyFile, "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("sops CLI could not decrypt an in-process encrypted %s document: %v", typ, err)
	}
	c, err := canonical.Canonicalize(d.Format, out)
	if err != nil {
		return fmt.Errorf("sops CLI output does not canonicalize: %w", err)
	}
	if !bytes.Equal(c, d.Canon) {
		return fmt.Errorf("sops CLI round trip changed a %s document: %s vs %s", typ, short(c), short(d.Canon))
	}
	return nil
}

// needles are the secrets of scenario s that no output may contain.
func (p *Player) needles(s *Scenario, ev *Evidence) []Needle {
	n := append([]Needle(nil), FixedNeedles...)
	n = append(n,
		Needle{Kind: "age-identity", Text: p.Enc.Identity},
		Needle{Kind: "credential", Text: VaultTokenCanary},
		Needle{Kind: "key-id", Text: p.Enc.Recipient},
		Needle{Kind: "credential", Text: p.cred[0]},
		Needle{Kind: "credential", Text: p.cred[1]},
		Needle{Kind: "credential", Text: p.cred[2]},
	)
	for _, c := range ev.Calls {
		if c.Token != "" {
			n = append(n, Needle{Kind: "token", Text: c.Token})
		}
	}
	for _, d := range []emulator.StateDump{ev.Pre, ev.Post} {
		for _, sec := range d.Secrets {
			n = append(n, Needle{Kind: "arn", Text: sec.ARN})
			for _, v := range sec.Versions {
				n = append(n, Needle{Kind: "token", Text: v.VersionID})
			}
		}
		for _, pd := range d.Parameters {
			n = append(n, Needle{Kind: "arn", Text: pd.ARN})
		}
	}
	return n
}

// nameNeedles are the resource names of s: allowed in logs only with
// --show-resource-names, never in reports.
func nameNeedles(s *Scenario) []Needle {
	var n []Needle
	seen := map[string]bool{}
	for _, rev := range s.Revisions {
		for path := range rev.Docs {
			if !seen[path] {
				seen[path] = true
				n = append(n, Needle{Kind: "path", Text: path}, Needle{Kind: "name", Text: SecretName(s.Scope, path)})
			}
		}
	}
	for _, b := range s.Siblings {
		for _, docs := range b.Docs {
			for path := range docs {
				if !seen[path] {
					seen[path] = true
					n = append(n, Needle{Kind: "path", Text: path}, Needle{Kind: "name", Text: SecretName(b.Scope, path)})
				}
			}
		}
	}
	return n
}

// adoptions counts the scenario's secrets made by hand that runs may adopt
// and those of them that post shows tagged as this scope's.
func adoptions(s *Scenario, post emulator.StateDump) (handMade, adopted int) {
	owned := map[string]bool{}
	for _, d := range post.Secrets {
		if d.Tags[model.TagManagedBy] == model.ManagedByValue && d.Tags[model.TagScope] == s.Scope.Digest() {
			owned[d.Name] = true
		}
	}
	for _, p := range s.Pre {
		if p.Adoptable {
			handMade++
			if owned[p.Name] {
				adopted++
			}
		}
	}
	return handMade, adopted
}
