package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Parameter Store as the primary scope (SPEC §16): scenarios whose only
// scope is a target parameter-store scope given by flags, as a user runs
// it, with what only a parameter has drawn per run: the tier (standard or
// advanced, a value past 4,096 bytes making every run advanced), the KMS
// key (none, the chaos key by id or alias, alias/aws/ssm), the description
// and tags; with the estate of an earlier sync and foreign parameters,
// another writer between runs, lost responses and errors on Parameter
// Store calls, and max-deletions. The invariants are the Parameter Store
// scope's (checkParameterStore, ps-*) and the primary's own (psp-*).

// PSPrimaryPrefix and PSPrimaryRoot are the scenarios' secret prefix and
// source root.
const (
	PSPrimaryPrefix = "psp/app"
	PSPrimaryRoot   = "params"
)

// PSP settings drawn per run: the KMS key references and descriptions
// (a Parameter Store description is at most 1,024 characters).
var (
	pspKMS          = []string{"", ChaosKMSKeyID, ChaosKMSAlias, "alias/aws/ssm"}
	pspDescriptions = []string{"", "chaos parameters", "Parameter Store — chaos ✓ 日本"}
)

// PSPRun is one CLI run of a Parameter Store primary scenario. Its
// Metadata (KMS key, description, tags; nil = none managed), Tier and
// MaxDeletions are given as flags.
type PSPRun struct {
	Run
	Tier string
}

// PSPScenario is one seeded Parameter Store primary scenario, pure data.
// Scope is the sibling form of the primary (Docs per revision, PSPre the
// estate, Tags and MaxDeletions per run, PSDrift the other writer's
// changes before run index i), so checkParameterStore judges it as it
// judges a Parameter Store scope beside a Secrets Manager one.
type PSPScenario struct {
	Index int
	Scope Sibling
	Runs  []PSPRun
	// Big is true when a document holds more than 4,096 bytes: every run
	// is advanced.
	Big bool
}

// GeneratePSPrimary draws Parameter Store primary scenario index of the
// campaign seed (its own stream): two to four revisions of one to five
// documents (the Parameter Store draw's stems and formats, a fifth of the
// scenarios with one document of 4,097–8,000 bytes), the estate of an
// earlier sync and foreign parameters as drawParameterStore draws them,
// three to six runs (sync or plan of non-decreasing revisions; half under
// faults: a lost-response rate, an error rate or scripted faults on
// Parameter Store calls; another writer before a third of the later runs;
// max-deletions 0–2 on a third of the non-final ones), each drawing its
// tier, KMS key, description and tags; then a final sync and a final plan
// of the last revision with the same settings, faults off. Pure.
func GeneratePSPrimary(seed uint64, index int) (PSPScenario, error) {
	r := rand.New(rand.NewPCG(seed^0x707370, uint64(index)))
	s := PSPScenario{Index: index, Big: r.IntN(5) == 0}
	b := Sibling{Name: "default", Kind: "parameter-store", Region: ChaosRegion, Account: emulator.DefaultAccountID,
		Scope: model.Scope{RepositoryID: "chaos/psp", SourceRoot: PSPrimaryRoot, Prefix: PSPrimaryPrefix, Target: model.TargetParameterStore}}
	objs := map[string]*object{}
	bigStem := psStems[r.IntN(len(psStems))]
	for range 2 + r.IntN(3) {
		docs := map[string]Doc{}
		keep := r.IntN(len(psStems))
		for k, st := range psStems {
			if k != keep && st != bigStem && r.IntN(2) == 0 {
				continue
			}
			o := objs[st]
			if o == nil || r.IntN(3) == 0 {
				o = newObject(r, r.IntN(2) == 0, 0)
				objs[st] = o
			}
			var d Doc
			var err error
			if s.Big && st == bigStem {
				d, err = bigPSDoc(r, b.Scope.SourceRoot+"/"+st, o)
			} else {
				d, err = psDoc(r, b.Scope.SourceRoot+"/"+st, o)
			}
			if err != nil {
				return s, err
			}
			docs[d.Path] = d
		}
		b.Docs = append(b.Docs, docs)
	}
	other := func() string { return `{"` + canaryKey(r) + `":"` + canary(r) + `"}` }
	for _, path := range sortedKeys(b.Docs[0]) {
		d := b.Docs[0][path]
		p := PSParam{Name: b.ResourceName(path), Tags: b.Scope.Tags(path), Kind: "ps-synced", Values: []string{string(d.Canon)}}
		switch x := r.IntN(10); {
		case len(d.Canon) > 4096:
			continue // an earlier sync at standard could not have made it
		case x < 5:
		case x < 7:
			p.Kind, p.Values = "ps-drift-value", []string{string(d.Canon), other()}
		case x < 8:
			p.Kind, p.Values = "ps-history", []string{other(), other(), string(d.Canon)}
		default:
			continue
		}
		b.PSPre = append(b.PSPre, p)
	}
	someone := model.Scope{RepositoryID: "someone/else", SourceRoot: b.Scope.SourceRoot, Prefix: PSPrimaryPrefix, Target: model.TargetParameterStore}
	for i := range 1 + r.IntN(3) {
		stem := fmt.Sprintf("legacy-f%d", i)
		p := PSParam{Name: "/" + PSPrimaryPrefix + "/" + stem, Foreign: true, Values: []string{other()}}
		switch r.IntN(3) {
		case 0:
			p.Kind = "ps-foreign-untagged"
		case 1:
			p.Kind, p.Tags = "ps-foreign-other-scope", someone.Tags(b.Scope.SourceRoot+"/"+stem+".sops.json")
		default:
			p.Kind, p.Type = "ps-foreign-string", "String"
		}
		b.PSPre = append(b.PSPre, p)
	}
	rev := 0
	var settings PSPRun
	draw := func() {
		settings.Tier = model.TierStandard
		if s.Big || r.IntN(2) == 0 {
			settings.Tier = model.TierAdvanced
		}
		m := &model.Metadata{KMSKeyID: pspKMS[r.IntN(len(pspKMS))], Description: pspDescriptions[r.IntN(len(pspDescriptions))]}
		if r.IntN(2) == 0 {
			m.Tags = map[string]string{"team": []string{"payments", "platform"}[r.IntN(2)]}
		}
		if m.KMSKeyID == "" && m.Description == "" && m.Tags == nil {
			m = nil
		}
		settings.Metadata = m
	}
	for i := range 3 + r.IntN(4) {
		draw()
		run := settings
		run.Command = "sync"
		if i > 0 && r.IntN(4) == 0 {
			run.Command = "plan"
		}
		if rev < len(b.Docs)-1 && r.IntN(2) == 0 {
			rev++
		}
		run.Revision = rev
		if r.IntN(2) == 0 {
			switch r.IntN(3) {
			case 0:
				run.Faults = emulator.Faults{Seed: r.Int64(), AmbiguousRate: 0.3, AmbiguousKind: "mixed"}
			case 1:
				run.Faults = emulator.Faults{Seed: r.Int64(), ErrorRate: 0.15}
			default:
				for range 1 + r.IntN(2) {
					run.Faults.Script = append(run.Faults.Script, emulator.ScriptedFault{
						Operation: psScriptOps[r.IntN(len(psScriptOps))], Nth: 1 + r.Int64N(3),
						Fault: psScriptFaults[r.IntN(len(psScriptFaults))]})
				}
			}
		}
		if r.IntN(3) == 0 {
			n := r.IntN(3)
			run.MaxDeletions = &n
		}
		if i > 0 && r.IntN(3) == 0 {
			if docs := b.Docs[s.Runs[i-1].Revision]; len(docs) > 0 {
				paths := sortedKeys(docs)
				d := Drift{Name: b.ResourceName(paths[r.IntN(len(paths))]), Kind: []string{"value", "value", "delete"}[r.IntN(3)]}
				if b.PSDrift == nil {
					b.PSDrift = map[int][]Drift{}
				}
				b.PSDrift[i] = append(b.PSDrift[i], d)
				b.Drifted++
			}
		}
		s.Runs = append(s.Runs, run)
	}
	draw()
	for _, cmd := range []string{"sync", "plan"} {
		run := settings
		run.Command, run.Revision, run.Final = cmd, len(b.Docs)-1, true
		s.Runs = append(s.Runs, run)
	}
	for _, run := range s.Runs {
		var tags map[string]string
		if run.Metadata != nil {
			tags = run.Metadata.Tags
		}
		b.Tags = append(b.Tags, tags)
		b.MaxDeletions = append(b.MaxDeletions, run.MaxDeletions)
	}
	s.Scope = b
	return s, nil
}

// bigPSDoc is o with one more member whose value makes the canonical
// document 4,097–8,000 bytes: past the standard tier, within the advanced.
func bigPSDoc(r *rand.Rand, stem string, o *object) (Doc, error) {
	c := o.shuffled(r)
	k := canaryKey(r)
	c.keys = append(c.keys, k)
	c.vals[k] = canary(r) + strings.Repeat("x", 4200+r.IntN(3000))
	return makeDoc(r, stem, canonical.JSON, c)
}

// scenario is s in the form checkParameterStore reads: no Secrets Manager
// documents, the Parameter Store scope as the one sibling.
func (s PSPScenario) scenario() *Scenario {
	sc := &Scenario{Index: s.Index, Siblings: []Sibling{s.Scope}}
	for _, r := range s.Runs {
		sc.Runs = append(sc.Runs, r.Run)
	}
	return sc
}

// PlayPSPrimary plays s against a fresh emulator process with the CLI
// (every Parameter Store call through the recording proxy) and returns the
// evidence checkParameterStore and CheckPSPrimary judge.
func PlayPSPrimary(cli, emuBin string, enc *Encrypter, dir string, s PSPScenario) (Evidence, error) {
	sc := s.scenario()
	ev := Evidence{Scenario: sc}
	emu, err := StartEmulator(emuBin)
	if err != nil {
		return ev, err
	}
	defer emu.Close()
	ctx := context.Background()
	repo, shas, err := commitRevisions(enc, dir, s.Scope.Docs, nil)
	if err != nil {
		return ev, err
	}
	if err := emu.SeedPS(s.Scope.PSPre); err != nil {
		return ev, err
	}
	if ev.Pre, err = emu.State(ctx); err != nil {
		return ev, err
	}
	proxy, err := NewProxy(emu.URL)
	if err != nil {
		return ev, err
	}
	defer proxy.Close()
	for i, run := range s.Runs {
		for _, d := range s.Scope.PSDrift[i] {
			ad := AppliedDrift{Drift: d, Run: i + 1}
			ad.Applied = emu.ApplyPSDrift(d) == nil
			ev.PSDrifts = append(ev.PSDrifts, ad)
		}
		proxy.Arm(i+1, nil, nil)
		if err := emu.SetFaults(ctx, run.Faults); err != nil {
			return ev, err
		}
		rr, err := pspRun(cli, dir, repo, shas[run.Revision], enc, proxy.URL, i, run)
		proxy.Drain()
		if err != nil {
			return ev, err
		}
		ev.Runs = append(ev.Runs, rr)
		if err := emu.SetFaults(ctx, emulator.Faults{}); err != nil {
			return ev, err
		}
	}
	ev.Calls = proxy.Calls()
	if ev.Post, err = emu.State(ctx); err != nil {
		return ev, err
	}
	if ev.PSFinal, err = emu.ReadParameters(ctx); err != nil {
		return ev, fmt.Errorf("failed to read the parameters with the SSM client: %w", err)
	}
	return ev, nil
}

// pspRun runs the CLI once for run i of a Parameter Store primary
// scenario: the scope by flags (--target parameter-store, the tier, the
// metadata, max-deletions), the report file read back.
func pspRun(cli, dir, repo, sha string, enc *Encrypter, endpoint string, i int, run PSPRun) (RunResult, error) {
	report := filepath.Join(dir, fmt.Sprintf("report-%d.json", i+1))
	args := []string{run.Command, "--repository", repo, "--revision", sha, "--repository-id", "chaos/psp",
		"--source-root", PSPrimaryRoot, "--secret-prefix", PSPrimaryPrefix, "--target", "parameter-store",
		"--parameter-tier", run.Tier, "--aws-region", ChaosRegion, "--report-file", report, "--log-level", "debug", "--aws-max-attempts", "1"}
	if run.Final {
		args = append(args, "--run-timeout", "60s", "--verification-timeout", "15s", "--operation-timeout", "10s")
	} else {
		args = append(args, "--run-timeout", "8s", "--verification-timeout", "2s", "--operation-timeout", "2s")
	}
	if m := run.Metadata; m != nil {
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
	if run.MaxDeletions != nil {
		args = append(args, "--max-deletions", strconv.Itoa(*run.MaxDeletions))
	}
	if run.Command == "plan" {
		args = append(args, "--detailed-exit-code")
	}
	home := filepath.Join(dir, "home")
	env := cliEnv(home, enc, "AKIACHAOSPSPRIMARY", "chaos-psp-secret",
		"AWS_ENDPOINT_URL_SSM="+endpoint, "AWS_ENDPOINT_URL_SECRETS_MANAGER="+endpoint, "AWS_SDK_UA_APP_ID="+RunAppID(i+1))
	rr, err := execCLI(cli, args, env, report, nil)
	rr.Run, rr.Revision = run.Run, sha
	return rr, err
}

// CheckPSPrimary judges a played Parameter Store primary scenario (pure):
// checkParameterStore's ps-* invariants over its calls and final state,
// and the primary's own:
//   - psp-crash: no run panics; psp-report-missing: every run writes its
//     report; psp-exit-status: the exit code is the report's status's
//     (vocab.ExitCode);
//   - psp-unexpected-status: a run ends converged or drift, or, under
//     faults or another writer, apply-failed, observation-failed or a
//     verification failure; invalid only when it sets max-deletions (the
//     gate); never conflict;
//   - psp-no-convergence: the final sync exits 0; psp-not-idempotent: the
//     final plan after it exits 0 (--detailed-exit-code: nothing to do, the
//     key and the description included);
//   - psp-tier: every PutParameter of an advanced run names Advanced, every
//     create of a standard run names Standard, and no write of a standard
//     run names Advanced (the tool never upgrades by itself, SPEC §16);
//   - psp-kms, psp-description: after the final sync every desired
//     parameter holds the configured key (model.SameKMSKey) and
//     description, when the final runs configure them;
//   - psp-leak: no output holds a plaintext canary, SOPS ciphertext, an age
//     identity or a parameter's name (names are not shown).
func CheckPSPrimary(s PSPScenario, ev Evidence) []Violation {
	vs := checkParameterStore(ev)
	add := func(kind string, run int, name, detail string) {
		vs = append(vs, Violation{Kind: kind, Run: run, Secret: name, Detail: detail})
	}
	for i, rr := range ev.Runs {
		n := i + 1
		run := s.Runs[i]
		if crashed(append(append([]byte{}, rr.Stdout...), rr.Stderr...)) {
			add("psp-crash", n, "", fmt.Sprintf("exit %d with a Go panic", rr.Exit))
			continue
		}
		var rep struct {
			Status vocab.Status `json:"status"`
		}
		if rr.Report == nil || json.Unmarshal(rr.Report, &rep) != nil {
			add("psp-report-missing", n, "", fmt.Sprintf("exit %d without a readable report", rr.Exit))
			continue
		}
		if want := vocab.ExitCode(rep.Status, run.Command == "plan"); want != rr.Exit {
			add("psp-exit-status", n, "", fmt.Sprintf("status %s means exit %d, got %d", rep.Status, want, rr.Exit))
		}
		disturbed := len(run.Faults.Script) > 0 || run.Faults.AmbiguousRate > 0 || run.Faults.ErrorRate > 0 || len(s.Scope.PSDrift[i]) > 0
		switch rep.Status {
		case vocab.StatusConverged, vocab.StatusDrift:
		case vocab.StatusInvalid:
			if run.MaxDeletions == nil {
				add("psp-unexpected-status", n, "", "invalid without max-deletions")
			}
		case vocab.StatusApplyFailed, vocab.StatusObservationFailed, vocab.StatusVerificationFailed, vocab.StatusVerificationInconclusive:
			if !disturbed {
				add("psp-unexpected-status", n, "", string(rep.Status)+" with no fault and no other writer")
			}
		default:
			add("psp-unexpected-status", n, "", string(rep.Status))
		}
		if run.Final && rr.Exit != 0 {
			kind := "psp-no-convergence"
			if run.Command == "plan" {
				kind = "psp-not-idempotent"
			}
			add(kind, n, "", fmt.Sprintf("final %s exit %d", run.Command, rr.Exit))
		}
		names := []Needle{}
		for _, docs := range s.Scope.Docs {
			for _, d := range docs {
				names = append(names, Needle{Kind: "name", Text: strings.TrimPrefix(s.Scope.ResourceName(d.Path), "/")})
			}
		}
		for _, l := range ScanRuns([]RunResult{rr}, FixedNeedles, names, false) {
			add("psp-leak", n, "", l.Kind+" in "+l.Where)
		}
	}
	for _, c := range ev.Calls {
		if c.Service != "ssm" || c.Op != "PutParameter" || c.Run < 1 || c.Run > len(s.Runs) {
			continue
		}
		tier := s.Runs[c.Run-1].Tier
		switch {
		case tier == model.TierAdvanced && c.Tier != "Advanced":
			add("psp-tier", c.Run, c.Target, fmt.Sprintf("a write of an advanced run names tier %q", c.Tier))
		case tier == model.TierStandard && !c.Overwrite && c.Tier != "Standard":
			add("psp-tier", c.Run, c.Target, fmt.Sprintf("a create of a standard run names tier %q", c.Tier))
		case tier == model.TierStandard && c.Tier == "Advanced":
			add("psp-tier", c.Run, c.Target, "a write of a standard run upgrades the parameter to Advanced")
		}
	}
	final := s.Runs[len(s.Runs)-1]
	converged := false
	for _, rr := range ev.Runs {
		converged = converged || rr.Run.Final && rr.Run.Command == "sync" && rr.Exit == 0
	}
	if !converged || final.Metadata == nil {
		return vs
	}
	want := s.Scope.Desired(final.Revision)
	for _, p := range ev.Post.Parameters {
		if _, ok := want[p.Name]; !ok || p.Account != emulator.DefaultAccountID || p.Region != ChaosRegion {
			continue
		}
		if k := final.Metadata.KMSKeyID; k != "" && !model.SameKMSKey(k, p.KeyID, p.ARN) {
			add("psp-kms", 0, p.Name, "the parameter's key is not the configured one after the final sync")
		}
		if d := final.Metadata.Description; d != "" && p.Description != d {
			add("psp-description", 0, p.Name, "the parameter's description is not the configured one after the final sync")
		}
	}
	return vs
}
