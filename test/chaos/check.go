package chaos

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/logging"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// RunResult is what one CLI run left behind.
type RunResult struct {
	Run Run
	// Revision is the commit SHA passed as --revision.
	Revision string
	// Exit is the exit code, -1 when the process died of a signal.
	Exit int
	// Killed is true when the campaign's kill plan fired in this run.
	Killed bool
	Stdout []byte
	Stderr []byte
	// Report is the report file's content, nil when there is none.
	Report   []byte
	Duration time.Duration
	// QuotaChanged is true when Run.Quotas changed the scale during the run.
	QuotaChanged bool
	// KeyServiceRequests counts the requests the key-service listener
	// (every address a planted stanza names) got during the run.
	KeyServiceRequests int
}

// Evidence is everything Check judges for one scenario.
type Evidence struct {
	Scenario *Scenario
	// Pre is the state after seeding, before the first run; Post after the
	// last run.
	Pre, Post emulator.StateDump
	Calls     []Call
	Runs      []RunResult
	// Drifts are the out-of-band changes the harness made between runs.
	Drifts []AppliedDrift
	// BeforePurge and AfterPurge are the states with the emulator clock
	// moved to one hour before and one hour after the end of the configured
	// recovery window (counted from Post).
	BeforePurge, AfterPurge *emulator.StateDump
	// STS are the STS requests of multi-scope runs (STSRecorder).
	STS []STSCall
	// PSDrifts are the out-of-band changes made to parameters between
	// runs; PSFinal the parameters as the SDK's SSM client reads them
	// after the last run (Parameter Store scenarios only).
	PSDrifts []AppliedDrift
	PSFinal  []PSObserved
}

// AppliedDrift is a Drift made before run Run (1-based); Applied is false
// when the emulator refused it.
type AppliedDrift struct {
	Drift
	Run     int
	Applied bool
}

// Violation is one broken invariant. Kind is a stable token (see
// docs/reliability.md); Detail never holds a value, only value digests.
type Violation struct {
	Kind   string
	Run    int // 1-based run, 0 = the final state
	Secret string
	Detail string
}

func (v Violation) String() string {
	s := v.Kind
	if v.Run > 0 {
		s += fmt.Sprintf(" run=%d", v.Run)
	}
	if v.Secret != "" {
		s += " secret=" + v.Secret
	}
	if v.Detail != "" {
		s += ": " + v.Detail
	}
	return s
}

// short is a value's identity for messages: 12 hex of its SHA-256.
func short(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:6])
}

// allowedLogKeys are slog's own keys plus the logger's vocabulary
// (logging.Fields, SPEC §7.3): one list, so a field the product adds is
// allowed here the day it is allowed there.
var allowedLogKeys = func() map[string]bool {
	m := map[string]bool{"time": true, "level": true, "msg": true}
	for k := range logging.Fields {
		m[k] = true
	}
	return m
}()

// ChaosRegion is the scope's own Region in every scenario (the runner's
// --aws-region): the Region of every primary; any other Region holds only
// their replicas.
const ChaosRegion = "us-east-1"

// verificationFor is the verification that goes with a sync status
// (SPEC §7.1).
func verificationFor(s vocab.Status) vocab.Verification {
	switch s {
	case vocab.StatusConverged:
		return vocab.VerificationConverged
	case vocab.StatusVerificationFailed:
		return vocab.VerificationFailed
	case vocab.StatusVerificationInconclusive:
		return vocab.VerificationInconclusive
	}
	return vocab.VerificationNotRun
}

var documentedExits = map[int]bool{0: true, 2: true, 3: true, 4: true, 5: true, 6: true, 130: true}

// Check judges one scenario's evidence against the campaign's invariants.
func Check(ev Evidence) []Violation {
	var vs []Violation
	// The primary scope is judged alone (project leaves the siblings of a
	// multi-scope scenario out); checkScopes judges the rest.
	p := project(ev)
	vs = append(vs, checkRuns(p)...)
	vs = append(vs, checkCalls(p)...)
	vs = append(vs, checkState(p)...)
	vs = append(vs, checkScopes(ev)...)
	vs = append(vs, checkParameterStore(ev)...)
	return vs
}

func checkRuns(ev Evidence) []Violation {
	var vs []Violation
	add := func(run int, kind, detail string) {
		vs = append(vs, Violation{Kind: kind, Run: run, Detail: detail})
	}
	mutations := map[int]int{}
	for _, c := range ev.Calls {
		if Mutating(c.Op) {
			mutations[c.Run]++
		}
	}
	for i, rr := range ev.Runs {
		n := i + 1
		var rep report.Report
		var repErr error
		if rr.Report != nil {
			rep, repErr = report.Parse(rr.Report)
			if repErr != nil {
				add(n, "report-invalid", repErr.Error())
			}
		}
		if rr.KeyServiceRequests > 0 {
			// Even a killed run must not have contacted it.
			add(n, "key-service-contacted", fmt.Sprintf("%d requests reached an address a document chose (a planted hc_vault or KMS role stanza), which --key-services does not allow", rr.KeyServiceRequests))
		}
		if rr.Killed {
			continue // exit code and outputs of a SIGKILLed process prove nothing
		}
		if len(rr.Stderr) > 0 {
			add(n, "stderr-output", fmt.Sprintf("%d bytes on stderr from a valid configuration", len(rr.Stderr)))
		}
		for j, line := range bytes.Split(bytes.TrimSpace(rr.Stdout), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var rec map[string]json.RawMessage
			if err := json.Unmarshal(line, &rec); err != nil {
				add(n, "log-vocabulary", fmt.Sprintf("stdout line %d is not a JSON record", j+1))
				continue
			}
			for k := range rec {
				if !allowedLogKeys[k] {
					add(n, "log-vocabulary", fmt.Sprintf("stdout line %d has field %q outside the vocabulary", j+1, k))
				}
			}
		}
		if !documentedExits[rr.Exit] {
			add(n, "undocumented-exit", fmt.Sprintf("exit %d", rr.Exit))
		}
		if rr.Report == nil {
			add(n, "report-missing", fmt.Sprintf("exit %d without a report file", rr.Exit))
			continue
		}
		if repErr != nil {
			continue
		}
		detailed := rr.Run.Command == "plan"
		if want := vocab.ExitCode(rep.Status, detailed); want != rr.Exit {
			add(n, "exit-status-mismatch", fmt.Sprintf("status %s means exit %d, got %d", rep.Status, want, rr.Exit))
		}
		if len(ev.Scenario.Siblings) > 0 {
			// Several scopes: the report's status and verification are each
			// the most severe of the scopes' (SPEC §10), not one pair.
			for _, d := range scopeVerification(rr) {
				add(n, "verification-mismatch", d)
			}
		} else {
			wantVer := verificationFor(rep.Status)
			if rr.Run.Command == "plan" {
				wantVer = vocab.VerificationNotRun
			}
			if rep.Verification != wantVer {
				add(n, "verification-mismatch", fmt.Sprintf("status %s with verification %s, want %s", rep.Status, rep.Verification, wantVer))
			}
		}
		if rep.GitRevision != rr.Revision {
			add(n, "report-revision", fmt.Sprintf("report names revision %q, run used %s", rep.GitRevision, rr.Revision))
		}
		switch rep.Status {
		case vocab.StatusInvalid:
			// The one valid reason: --max-deletions blocked the plan, which
			// then changed nothing (SPEC §5, §12).
			if (rr.Run.MaxDeletions == nil && !psLimited(ev.Scenario, i)) || mutations[n] > 0 {
				add(n, "unexpected-invalid", "a valid desired state and configuration were rejected")
			}
		case vocab.StatusConflict:
			add(n, "spurious-conflict", fmt.Sprintf("%d conflicts reported in a scenario without conflicts", rep.Counts.Conflicts))
		}
		if rr.Run.Final {
			switch rr.Run.Command {
			case "sync":
				if rr.Exit != 0 || rep.Status != vocab.StatusConverged || rep.Verification != vocab.VerificationConverged {
					add(n, "no-convergence", fmt.Sprintf("final sync with faults off: exit %d, status %s, verification %s", rr.Exit, rep.Status, rep.Verification))
				}
			case "plan":
				if rr.Exit != 0 || rep.Status != vocab.StatusConverged || rep.Counts.Operations() != 0 {
					add(n, "not-idempotent", fmt.Sprintf("plan after a converged sync: exit %d, status %s, %d operations", rr.Exit, rep.Status, rep.Counts.Operations()))
				}
			}
		}
	}
	return vs
}

// names maps every ARN seen in pre or post to its name.
func arnNames(ds ...emulator.StateDump) map[string]string {
	m := map[string]string{}
	for _, d := range ds {
		for _, s := range d.Secrets {
			m[s.ARN] = s.Name
		}
	}
	return m
}

func checkCalls(ev Evidence) []Violation {
	var vs []Violation
	s := ev.Scenario
	arns := arnNames(ev.Pre, ev.Post)
	name := func(t string) string {
		if n, ok := arns[t]; ok {
			return n
		}
		return t
	}
	foreign, adoptable := map[string]bool{}, map[string]bool{}
	for _, p := range s.Pre {
		if p.Foreign {
			foreign[p.Name] = true
		}
		if p.Adoptable {
			adoptable[p.Name] = true
		}
	}
	// tagged holds the hand-made secrets some TagResource carrying the
	// ownership tags reached (or was meant to reach) so far: from then on
	// they may be the scope's.
	tagged := map[string]bool{}
	deletions := runDeletions{}
	tokenRun := map[string]int{}
	tokenTarget := map[string]string{}
	deleteSeen := map[int]bool{}
	runTokens := map[int]map[string]bool{}
	for _, c := range ev.Calls {
		n := c.Run
		if runTokens[n] == nil {
			runTokens[n] = map[string]bool{}
		}
		target := name(c.Target)
		add := func(kind, detail string) {
			vs = append(vs, Violation{Kind: kind, Run: n, Secret: target, Detail: detail})
		}
		if !Mutating(c.Op) {
			continue
		}
		if n >= 1 && n <= len(ev.Runs) && ev.Runs[n-1].Run.Command == "plan" {
			add("plan-mutated", c.Op+" during plan")
		}
		var meta *model.Metadata
		if n >= 1 && n <= len(ev.Runs) {
			meta = ev.Runs[n-1].Run.Metadata
		}
		metadataOnly := c.Op == "UpdateSecret" && !c.HasValue
		switch c.Op {
		case "CreateSecret", "PutSecretValue", "DeleteSecret", "RestoreSecret",
			"ReplicateSecretToRegions", "RemoveRegionsFromReplication": // judged by checkReplicaCall
		case "UpdateSecret":
			if metadataOnly && (meta == nil || meta.KMSKeyID == "" && meta.Description == "") {
				add("forbidden-operation", "UpdateSecret of metadata the run did not configure")
			}
		case "TagResource":
			// Configured metadata: only the tag keys the run configured, never others;
			// SPEC §11: and the three ownership tags on a secret the run
			// names in adopt.
			var configured map[string]string
			if meta != nil {
				configured = meta.Tags
			}
			if len(c.TagKeys) == 0 {
				add("forbidden-operation", "TagResource without tags")
			}
			adopting := adoptable[target] && slices.Contains(runAdopt(ev, n), target)
			for _, k := range c.TagKeys {
				reserved := k == model.TagManagedBy || k == model.TagScope || k == model.TagSource
				if _, ok := configured[k]; !ok && !(reserved && adopting) {
					add("forbidden-operation", "TagResource of a tag key the run did not configure")
					break
				}
			}
			if adopting && slices.Contains(c.TagKeys, model.TagManagedBy) {
				if !slices.Contains(c.TagKeys, model.TagScope) || !slices.Contains(c.TagKeys, model.TagSource) {
					add("adopt-tags", "an adoption's TagResource without all three ownership tags")
				}
				tagged[target] = true
			}
		default:
			add("forbidden-operation", c.Op)
		}
		// The adoption invariant (SPEC §11): a secret without our tags is
		// never written unless the run names it in adopt (or an earlier
		// TagResource made it the scope's), and an adoption writes its
		// ownership tags before anything else.
		switch {
		case foreign[target] && !adoptable[target]:
			add("foreign-write", c.Op+" on a secret the scope does not own")
		case adoptable[target] && !tagged[target] && !slices.Contains(runAdopt(ev, n), target):
			add("foreign-write", c.Op+" on a secret made by hand that the run does not name in adopt")
		case adoptable[target] && !tagged[target] && c.Op != "TagResource":
			add("adopt-order", c.Op+" on a secret made by hand before its ownership tags")
		}
		var run *Run
		if n >= 1 && n <= len(ev.Runs) {
			run = &ev.Runs[n-1].Run
		}
		vs = append(vs, checkReplicaCall(s, run, n, target, c)...)
		if c.Op == "DeleteSecret" {
			deletions.note(n, target)
		}
		for _, region := range c.RemoveRegions {
			deletions.note(n, target+"@"+region)
		}
		switch c.Op {
		case "DeleteSecret":
			if c.Force {
				add("force-delete", "DeleteSecret with ForceDeleteWithoutRecovery")
			}
			if c.Window != s.RecoveryWindowDays {
				add("deletion-window", fmt.Sprintf("RecoveryWindowInDays %d, configured %d", c.Window, s.RecoveryWindowDays))
			}
			deleteSeen[n] = true
		case "CreateSecret", "PutSecretValue", "UpdateSecret":
			if metadataOnly {
				break // no value, no version, no token
			}
			if l := len(c.Token); l < 32 || l > 64 {
				add("token-invalid", fmt.Sprintf("ClientRequestToken of %d characters", l))
				break
			}
			if r, ok := tokenRun[c.Token]; ok && r != n {
				add("token-reuse", fmt.Sprintf("a token of run %d used again in run %d", r, n))
			}
			if t, ok := tokenTarget[c.Token]; ok && t != target {
				add("token-reuse", "one token used for two secrets")
			}
			if deleteSeen[n] && !runTokens[n][c.Token] {
				add("phase-order", c.Op+" started after a DeleteSecret in the same run")
			}
			tokenRun[c.Token], tokenTarget[c.Token] = n, target
			runTokens[n][c.Token] = true
		case "RestoreSecret":
			if deleteSeen[n] {
				add("phase-order", "RestoreSecret after a DeleteSecret in the same run")
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(deletions)) {
		if n < 1 || n > len(ev.Runs) {
			continue
		}
		if lim := ev.Runs[n-1].Run.MaxDeletions; lim != nil && len(deletions[n]) > *lim {
			vs = append(vs, Violation{Kind: "deletion-limit", Run: n,
				Detail: fmt.Sprintf("%d deletions and replica removals with --max-deletions %d", len(deletions[n]), *lim)})
		}
	}
	return vs
}

// runAdopt is run n's --adopt list (nil outside the runs).
func runAdopt(ev Evidence, n int) []string {
	if n < 1 || n > len(ev.Runs) {
		return nil
	}
	return ev.Runs[n-1].Run.Adopt
}

// byName maps the names of the secrets in ChaosRegion (the primaries; the
// replicas in other Regions share their names) to their dumps.
func byName(d emulator.StateDump) map[string]emulator.SecretDump {
	m := map[string]emulator.SecretDump{}
	for _, s := range d.Secrets {
		if s.Region == ChaosRegion || s.Region == "" {
			m[s.Name] = s
		}
	}
	return m
}

// runDeletions are, per run, the deletions it made: a secret's name for a
// DeleteSecret, name@Region for each replica removed.
type runDeletions map[int]map[string]bool

func (d runDeletions) note(run int, what string) {
	if d[run] == nil {
		d[run] = map[string]bool{}
	}
	d[run][what] = true
}

// checkReplicaCall judges one mutating call against the replica invariants
// (SPEC §12): every write goes to a primary in ChaosRegion, never to a
// replica; ForceOverwriteReplicaSecret is never sent; a replica is added
// only in a Region the run configured; a replica is removed only when the
// run configures replica-regions, and a configured Region only from a
// secret the run's revision no longer desires (removed before its
// deletion).
func checkReplicaCall(s *Scenario, run *Run, n int, target string, c Call) []Violation {
	var vs []Violation
	add := func(kind, detail string) {
		vs = append(vs, Violation{Kind: kind, Run: n, Secret: target, Detail: detail})
	}
	if c.Region != "" && c.Region != ChaosRegion {
		add("replica-write", fmt.Sprintf("%s signed for %s, not the scope's Region", c.Op, c.Region))
	}
	if c.ForceOverwrite {
		add("replica-config", c.Op+" with ForceOverwriteReplicaSecret")
	}
	var configured []string
	if run != nil {
		configured = model.ReplicaRegionsOf(run.Replicas)
	}
	for _, region := range c.AddRegions {
		if !slices.Contains(configured, region) {
			add("replica-config", c.Op+" adds a replica in a Region the run did not configure")
		}
	}
	if c.Op == "RemoveRegionsFromReplication" {
		if len(configured) == 0 {
			add("replica-removal", "a replica removed by a run without replica-regions")
		}
		desired := false
		if run != nil {
			_, desired = s.Revisions[run.Revision].Desired(s.Scope)[target]
		}
		for _, region := range c.RemoveRegions {
			if slices.Contains(configured, region) && desired {
				add("replica-removal", "a configured replica of a desired secret removed")
			}
		}
	}
	return vs
}

// current returns the versions holding AWSCURRENT.
func current(s emulator.SecretDump) []emulator.VersionDump {
	var out []emulator.VersionDump
	for _, v := range s.Versions {
		if slices.Contains(v.Stages, "AWSCURRENT") {
			out = append(out, v)
		}
	}
	return out
}

// currentKey is valueKey of the one AWSCURRENT version.
func currentKey(s emulator.SecretDump) (string, bool) {
	c := current(s)
	if len(c) != 1 {
		return "", false
	}
	k := valueKey(c[0].SecretString, c[0].SecretBinary)
	return k, k != ""
}

func checkState(ev Evidence) []Violation {
	var vs []Violation
	add := func(kind, secret, detail string) {
		vs = append(vs, Violation{Kind: kind, Secret: secret, Detail: detail})
	}
	s := ev.Scenario
	pre, post := byName(ev.Pre), byName(ev.Post)
	final := s.FinalRevision().Desired(s.Scope)
	ever := s.EverDesired()
	// managed are the tag keys some run configured: the only
	// tags the tool may add or change; finalMeta is the final runs'.
	managed := map[string]bool{}
	var finalMeta *model.Metadata
	for _, run := range s.Runs {
		if run.Metadata != nil {
			for k := range run.Metadata.Tags {
				managed[k] = true
			}
			if run.Final {
				finalMeta = run.Metadata
			}
		}
	}
	foreign, adoptable := map[string]bool{}, map[string]bool{}
	for _, p := range s.Pre {
		if p.Foreign {
			foreign[p.Name] = true
		}
		if p.Adoptable {
			adoptable[p.Name] = true
		}
	}

	for _, n := range sortedKeys(pre) {
		p := pre[n]
		q, ok := post[n]
		if !ok {
			add("force-delete", n, "a secret that existed before the scenario is gone (purged or force-deleted)")
			continue
		}
		adopted := adoptable[n] && q.Tags[model.TagManagedBy] == model.ManagedByValue && q.Tags[model.TagScope] == s.Scope.Digest()
		if adopted {
			// Adopted (SPEC §11): its own tags stay, the ownership tags
			// (and configured ones) are added, its history is kept.
			ownership := map[string]bool{model.TagManagedBy: true, model.TagScope: true, model.TagSource: true}
			maps.Copy(ownership, managed)
			if k := changedTag(p.Tags, q.Tags, ownership); k != "" {
				add("retagged", n, "an adopted secret lost or changed a tag of its own")
			}
			if _, ok := final[n]; ok && !slices.Contains(s.Runs[len(s.Runs)-1].Adopt, n) {
				add("adopt-config", n, "desired at the end but not named in the final run's adopt")
			}
		}
		if foreign[n] && !adopted {
			if d := diffSecret(p, q); d != "" {
				add("foreign-changed", n, d)
			}
			continue
		}
		if k := changedTag(p.Tags, q.Tags, managed); k != "" && !adopted {
			add("retagged", n, "a tag of an owned secret that no run configured changed or disappeared")
		}
		if p.ARN != q.ARN {
			add("recreated", n, "the ARN changed")
		}
		for i, v := range p.Versions {
			if i >= len(q.Versions) || q.Versions[i].VersionID != v.VersionID || !sameValue(v, q.Versions[i]) {
				add("history-rewritten", n, fmt.Sprintf("version %d changed or disappeared", i+1))
				break
			}
		}
	}

	// Every desired secret holds exactly its canonical value.
	for _, n := range sortedKeys(final) {
		d := final[n]
		q, ok := post[n]
		if !ok {
			add("desired-missing", n, "not in the final state")
			continue
		}
		if q.DeletedDate != nil {
			add("desired-pending", n, "scheduled for deletion")
		}
		if c := current(q); len(c) != 1 {
			add("desired-staging", n, fmt.Sprintf("%d versions hold AWSCURRENT", len(c)))
		} else if got, ok := currentKey(q); !ok {
			add("desired-value", n, "AWSCURRENT holds neither or both of a string and a binary")
		} else if want := docKey(d); got != want {
			add("desired-value", n, fmt.Sprintf("AWSCURRENT is %s, want %s", short([]byte(got)), short([]byte(want))))
		}
		if _, seeded := pre[n]; !seeded {
			if want := s.Scope.Tags(d.Path); changedTag(want, q.Tags, managed) != "" {
				add("desired-tags", n, "the created secret's tags are not the three reserved tags of its document plus configured ones")
			}
		}
		if m := finalMeta; m != nil {
			for k, v := range m.Tags {
				if got, ok := q.Tags[k]; !ok || got != v {
					add("desired-metadata", n, "a configured tag is missing or holds another value after the final sync")
				}
			}
			if m.Description != "" && q.Description != m.Description {
				add("desired-metadata", n, "the configured description is not set after the final sync")
			}
			if m.KMSKeyID != "" && !model.SameKMSKey(m.KMSKeyID, q.KmsKeyID, q.ARN) {
				add("desired-metadata", n, "the configured KMS key is not set after the final sync")
			}
		}
	}

	// Replicas: a final sync with replica-regions leaves every desired
	// secret with exactly the configured replicas, InSync, each a replica
	// of the ChaosRegion primary; a secret scheduled for deletion has none
	// (AWS refuses to delete a primary with replicas); outside ChaosRegion
	// there is nothing but replicas of its primaries.
	var finalReplicas []string
	for _, run := range s.Runs {
		if run.Final && run.Command == "sync" {
			finalReplicas = model.ReplicaRegionsOf(run.Replicas)
		}
	}
	elsewhere := map[string]emulator.SecretDump{}
	for _, sd := range ev.Post.Secrets {
		if sd.Region == ChaosRegion || sd.Region == "" {
			continue
		}
		elsewhere[sd.Region+"/"+sd.Name] = sd
		if !sd.Replica || sd.PrimaryRegion != ChaosRegion {
			add("unexpected-secret", sd.Name, "a secret outside the scope's Region that is not a replica of its primary")
		}
	}
	if len(finalReplicas) > 0 {
		for _, n := range sortedKeys(final) {
			q, ok := post[n]
			if !ok {
				continue
			}
			got := slices.Sorted(slices.Values(q.ReplicaRegions))
			if !slices.Equal(got, finalReplicas) {
				add("desired-replicas", n, fmt.Sprintf("replicas %v after the final sync, configured %v", got, finalReplicas))
				continue
			}
			for _, st := range q.ReplicationStatus {
				if st.Status != "InSync" {
					add("desired-replicas", n, fmt.Sprintf("replica in %s is %s after the final sync", st.Region, st.Status))
				}
			}
			for _, region := range finalReplicas {
				if _, ok := elsewhere[region+"/"+n]; !ok {
					add("desired-replicas", n, "no replica secret in "+region)
				}
			}
		}
	}
	for _, n := range sortedKeys(post) {
		if q := post[n]; q.DeletedDate != nil && len(q.ReplicaRegions) > 0 {
			add("replica-of-deleted", n, "a secret scheduled for deletion still has replicas")
		}
	}

	// Owned secrets no longer desired are scheduled for deletion.
	owned := map[string]bool{}
	for n := range ever {
		owned[n] = true
	}
	for _, p := range s.Pre {
		if !p.Foreign {
			owned[p.Name] = true
		}
	}
	drifted := map[string]bool{}    // any applied out-of-band change
	valueDrifts := map[string]int{} // applied out-of-band value changes
	for _, d := range ev.Drifts {
		if d.Applied {
			drifted[d.Name] = true
			if d.Kind == "value" {
				valueDrifts[d.Name]++
			}
		}
	}
	var deletedHere []string
	for _, n := range sortedKeys(owned) {
		if _, ok := final[n]; ok {
			continue
		}
		q, ok := post[n]
		if !ok {
			continue // never created (or gone: reported above)
		}
		if q.DeletedDate == nil {
			add("owned-not-deleted", n, "owned, not desired, still active")
			continue
		}
		if p, ok := pre[n]; ok && p.DeletedDate != nil {
			if p.DeletedDate.Equal(*q.DeletedDate) {
				continue // left as it was
			}
			if !ever[n] && !drifted[n] {
				// Never desired nor restored by hand: it had no reason to be restored and deleted again.
				add("redeleted", n, "a secret already scheduled for deletion was deleted again")
				continue
			}
		}
		if !drifted[n] { // a hand-made deletion has its own window
			deletedHere = append(deletedHere, n)
		}
	}

	// Nothing else appeared.
	for _, n := range sortedKeys(post) {
		if _, ok := pre[n]; !ok && !ever[n] {
			add("unexpected-secret", n, "a secret no desired revision names was created")
		}
	}

	// At most one new version per logical write.
	for _, n := range sortedKeys(post) {
		if foreign[n] {
			continue
		}
		q := post[n]
		p, seeded := pre[n]
		added := len(q.Versions)
		preCur := ""
		hasPre := false
		if seeded {
			added -= len(p.Versions)
			preCur, hasPre = currentKey(p)
		}
		// Logical writes: each sync whose desired value differs from the
		// value the previous sync wanted (or, for the first, from the one
		// the Pre state held). A value may come back (A, then B, then A
		// again: a whole value switched to binary and back), which is a
		// write each time.
		writes, cur, known := 0, preCur, hasPre
		for _, r := range s.Runs {
			if r.Command != "sync" {
				continue
			}
			if d, ok := s.Revisions[r.Revision].Desired(s.Scope)[n]; ok {
				if k := docKey(d); !known || k != cur {
					writes++
					cur, known = k, true
				}
			}
		}
		// Each out-of-band value change adds its own version and may need
		// one repair.
		added -= valueDrifts[n]
		if allowed := writes + valueDrifts[n]; added > allowed {
			add("version-churn", n, fmt.Sprintf("%d new versions for %d logical writes", added, allowed))
		}
	}

	// The configured recovery window, by the emulator clock.
	if ev.BeforePurge != nil && ev.AfterPurge != nil {
		before, after := byName(*ev.BeforePurge), byName(*ev.AfterPurge)
		for _, n := range deletedHere {
			if _, ok := before[n]; !ok {
				add("deletion-window", n, fmt.Sprintf("purged before %d days", s.RecoveryWindowDays))
			}
			if _, ok := after[n]; ok {
				add("deletion-window", n, fmt.Sprintf("still present after %d days", s.RecoveryWindowDays))
			}
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Kind < vs[j].Kind })
	return vs
}

func sameValue(a, b emulator.VersionDump) bool {
	if (a.SecretString == nil) != (b.SecretString == nil) {
		return false
	}
	if a.SecretString != nil && *a.SecretString != *b.SecretString {
		return false
	}
	return bytes.Equal(a.SecretBinary, b.SecretBinary)
}

// diffSecret names the first difference between two dumps of one secret,
// or "" when they are identical.
func diffSecret(a, b emulator.SecretDump) string {
	switch {
	case a.ARN != b.ARN:
		return "ARN changed"
	case a.Description != b.Description:
		return "description changed"
	case a.KmsKeyID != b.KmsKeyID:
		return "KMS key changed"
	case !maps.Equal(a.Tags, b.Tags):
		return "tags changed"
	case (a.DeletedDate == nil) != (b.DeletedDate == nil) || a.DeletedDate != nil && !a.DeletedDate.Equal(*b.DeletedDate):
		return "deletion state changed"
	case a.RotationEnabled != b.RotationEnabled || a.OwningService != b.OwningService || !slices.Equal(a.ReplicaRegions, b.ReplicaRegions):
		return "rotation, owning service or replicas changed"
	case len(a.Versions) != len(b.Versions):
		return fmt.Sprintf("%d versions became %d", len(a.Versions), len(b.Versions))
	}
	for i := range a.Versions {
		x, y := a.Versions[i], b.Versions[i]
		if x.VersionID != y.VersionID || !sameValue(x, y) || !slices.Equal(x.Stages, y.Stages) || !x.CreatedDate.Equal(y.CreatedDate) {
			return fmt.Sprintf("version %d changed", i+1)
		}
	}
	return ""
}

// changedTag returns a tag key whose value differs between before and
// after (added, removed or changed) and is not in managed; "" when none.
func changedTag(before, after map[string]string, managed map[string]bool) string {
	for _, k := range sortedKeys(before) {
		if v, ok := after[k]; (!ok || v != before[k]) && !managed[k] {
			return k
		}
	}
	for _, k := range sortedKeys(after) {
		if _, ok := before[k]; !ok && !managed[k] {
			return k
		}
	}
	return ""
}
