package chaos

import (
	"bytes"
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestScopesDrawnAndConfigResolves: the scopes draw gives some scenarios
// siblings in every bucket kind, with prefixes and roots of their own, and
// the config file of each run resolves to one scope per entry, primary
// first, with the scenario's identity.
func TestScopesDrawnAndConfigResolves(t *testing.T) {
	kinds := map[string]int{}
	multi := 0
	for i := range 60 {
		s, err := Generate(1, i, DefaultGenOptions)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Siblings) == 0 {
			continue
		}
		multi++
		if len(s.Siblings) > 4 {
			t.Fatalf("scenario %d: %d siblings", i, len(s.Siblings))
		}
		for _, b := range s.Siblings {
			kinds[b.Kind]++
			if len(b.Docs) != len(s.Revisions) {
				t.Fatalf("scenario %d: sibling %s has %d revisions of %d", i, b.Name, len(b.Docs), len(s.Revisions))
			}
		}
		for ri, run := range s.Runs {
			body := scopesConfig(s, ri)
			o, err := config.Resolve(config.Input{Command: run.Command, Flags: map[string]string{config.ConfigFile: "cfg.yaml"},
				ReadFile: func(string) ([]byte, error) { return body, nil }})
			if err != nil {
				t.Fatalf("scenario %d: config does not resolve: %v\n%s", i, err, body)
			}
			if len(o.Scopes) != 1+len(s.Siblings) || o.Scopes[0].Name != PrimaryScopeName {
				t.Fatalf("scenario %d: scopes %+v", i, o.Scopes)
			}
		}
	}
	if multi == 0 || kinds["shared"] == 0 || kinds["region"] == 0 || kinds["account"] == 0 {
		t.Fatalf("multi-scope scenarios %d, kinds %v", multi, kinds)
	}
	// Single-scope scenarios are drawn as before: turning the draw off
	// changes nothing else.
	off := DefaultGenOptions
	off.Scopes = false
	for i := range 20 {
		a, _ := Generate(1, i, DefaultGenOptions)
		b, _ := Generate(1, i, off)
		a.Siblings = nil
		if len(a.Runs) != len(b.Runs) || len(a.Pre) != len(b.Pre) || a.Scope != b.Scope {
			t.Fatalf("scenario %d differs with the scopes draw on", i)
		}
	}
}

// multiEvidence is cleanEvidence with one sibling scope through a role in
// SiblingAccount and SiblingRegion, played by an ideal tool: its one
// document created there under its scope's tags, its calls signed for its
// Region, STS asked only for the base identity and the scope's role.
func multiEvidence() *Evidence {
	ev := cleanEvidence()
	s := ev.Scenario
	b := Sibling{Name: "s2", Kind: "account", Region: SiblingRegion, RoleARN: SiblingRole, Account: SiblingAccount,
		Scope: model.Scope{RepositoryID: "o/r", SourceRoot: "siblings/s2", Prefix: "sib-s2/svc"}}
	d := doc("siblings/s2/db.sops.json", `{"v":1}`)
	for range s.Revisions {
		b.Docs = append(b.Docs, map[string]Doc{d.Path: d})
	}
	s.Siblings = []Sibling{b}
	sd := emulator.SecretDump{Account: SiblingAccount, Region: SiblingRegion, Name: "sib-s2/svc/db",
		ARN:  "arn:aws:secretsmanager:" + SiblingRegion + ":" + SiblingAccount + ":secret:sib-s2/svc/db-AbCdEf",
		Tags: b.Scope.Tags(d.Path), Versions: []emulator.VersionDump{{VersionID: "v-s", SecretString: sp(`{"v":1}`), Stages: []string{"AWSCURRENT"}}}}
	ev.Post.Secrets = append(ev.Post.Secrets, sd)
	ev.BeforePurge.Secrets = append(ev.BeforePurge.Secrets, sd)
	ev.AfterPurge.Secrets = append(ev.AfterPurge.Secrets, sd)
	ev.Calls = append(ev.Calls,
		Call{Run: 1, Op: "ListSecrets", Region: SiblingRegion, Status: 200},
		Call{Run: 1, Op: "CreateSecret", Target: sd.Name, Token: "cccccccccccccccccccccccccccccccccccc", Region: SiblingRegion, Status: 200, TagKeys: []string{model.TagManagedBy}})
	ev.STS = []STSCall{{Run: 1, Action: "GetCallerIdentity"}, {Run: 1, Action: "AssumeRole", Role: SiblingRole, Session: "sops-aws-sync-s2"}}
	return ev
}

func TestCheckScopes_AcceptsAnIdealMultiScopeRun(t *testing.T) {
	if vs := Check(*multiEvidence()); len(vs) != 0 {
		t.Fatalf("violations on an ideal multi-scope run: %v", vs)
	}
}

// TestCheckScopes_CatchesEveryBrokenInvariant breaks one multi-scope
// promise at a time and expects exactly the matching violation kind.
func TestCheckScopes_CatchesEveryBrokenInvariant(t *testing.T) {
	cases := map[string]struct {
		want   string
		mutate func(ev *Evidence)
	}{
		"planted stanza's AssumeRole": {"sts-foreign", func(ev *Evidence) {
			ev.STS = append(ev.STS, STSCall{Run: 1, Action: "AssumeRole", Role: "arn:aws:iam::999999999999:role/attacker", Session: "sops@host"})
		}},
		"scope role under another session name": {"sts-foreign", func(ev *Evidence) {
			ev.STS[1].Session = "sops-aws-sync-s3"
		}},
		"write in a planning failure": {"all-or-nothing", func(ev *Evidence) {
			ev.Runs[0].Report = reportJSON(shaB, "conflict", "not-run", 0)
			ev.Runs[0].Exit = 4
		}},
		"sibling write signed for another Region": {"scope-region", func(ev *Evidence) {
			ev.Calls[len(ev.Calls)-1].Region = ChaosRegion
		}},
		"sibling secret in the primary's bucket": {"scope-bucket", func(ev *Evidence) {
			ev.Post.Secrets[len(ev.Post.Secrets)-1].Account = emulator.DefaultAccountID
		}},
		"sibling secret without its tags": {"scope-ownership", func(ev *Evidence) {
			ev.Post.Secrets[len(ev.Post.Secrets)-1].Tags = map[string]string{}
		}},
		"sibling value not converged": {"scope-convergence", func(ev *Evidence) {
			ev.Post.Secrets[len(ev.Post.Secrets)-1].Versions[0].SecretString = sp(`{"v":2}`)
		}},
		"sibling secret missing": {"scope-convergence", func(ev *Evidence) {
			ev.Post.Secrets = ev.Post.Secrets[:len(ev.Post.Secrets)-1]
		}},
		"sibling replicas not the configured ones": {"scope-replicas", func(ev *Evidence) {
			ev.Scenario.Siblings[0].Replicas = []model.Replica{{Region: "eu-west-1"}}
		}},
		"sibling binary value stored as a string": {"scope-convergence", func(ev *Evidence) {
			b := &ev.Scenario.Siblings[0]
			for i := range b.Docs {
				for p, d := range b.Docs[i] {
					d.Format = canonical.Binary
					b.Docs[i][p] = d
				}
			}
		}},
		"sibling secret made by hand written before it was tagged": {"scope-adopt-order", func(ev *Evidence) {
			b := &ev.Scenario.Siblings[0]
			b.Pre = []PreSecret{{Name: "sib-s2/svc/db", Foreign: true, Adoptable: true}}
			ev.Calls[len(ev.Calls)-1].Op = "PutSecretValue"
		}},
		"secret outside every namespace in the sibling account": {"unexpected-secret", func(ev *Evidence) {
			ev.Post.Secrets = append(ev.Post.Secrets, emulator.SecretDump{Account: SiblingAccount, Region: SiblingRegion, Name: "elsewhere/x"})
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ev := multiEvidence()
			tc.mutate(ev)
			got := kinds(Check(*ev))
			if !slices.Contains(got, tc.want) {
				t.Fatalf("want %s, got %v", tc.want, got)
			}
			for _, k := range got {
				// A conflict report is also spurious-conflict here; a secret
				// in the wrong bucket is also missing from its own.
				if k != tc.want && k != "spurious-conflict" && (k != "scope-convergence" || tc.want != "scope-bucket") {
					t.Fatalf("want only %s, got %v", tc.want, got)
				}
			}
		})
	}
}

// TestRegression_MultiScopeVerificationJudgedAsOnePair: a multi-scope
// report's status and verification are each the most severe of the
// scopes' (apply-failed in one, verification-inconclusive in another gives
// apply-failed with inconclusive); the checker judged them as one
// single-scope pair and reported verification-mismatch. Each scope's own
// record is judged as a pair instead.
func TestRegression_MultiScopeVerificationJudgedAsOnePair(t *testing.T) {
	rec := func(scope, status, ver string) string {
		return `{"time":"t","level":"INFO","msg":"scope finished","phase":"complete","scope":"` + scope + `","status":"` + status + `","verification":"` + ver + `","count":1}` + "\n"
	}
	rr := RunResult{Run: Run{Command: "sync"}, Report: reportJSON(shaB, "apply-failed", "inconclusive", 0),
		Stdout: []byte(rec("main", "verification-inconclusive", "inconclusive") + rec("s2", "apply-failed", "not-run") + rec("s3", "converged", "converged"))}
	if got := scopeVerification(rr); len(got) != 0 {
		t.Fatalf("the most severe of each: %v", got)
	}
	bad := rr
	bad.Report = reportJSON(shaB, "apply-failed", "failed", 0)
	bad.Stdout = []byte(rec("main", "apply-failed", "inconclusive") + rec("s2", "apply-failed", "not-run"))
	if got := scopeVerification(bad); len(got) != 2 {
		t.Fatalf("a scope's pair that does not go together and a report verification of no scope: %v", got)
	}
}

// TestRegression_SiblingsDrawTheEstate: the other scopes of multi-scope
// scenarios draw what the primary does — replica-regions, whole-value
// documents, a secret made by hand named in adopt, an out-of-band value
// change — so the all-or-nothing and per-scope invariants are checked
// with them; they drew JSON documents alone. Each adopt entry names a
// document of every revision (else every run would be exit 3), and a
// hand-made secret or a drift is drawn only in the shared bucket, the one
// the harness's client reaches.
func TestRegression_SiblingsDrawTheEstate(t *testing.T) {
	draws := map[string]int{}
	for i := range 200 {
		s, err := Generate(1, i, DefaultGenOptions)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range s.Siblings {
			if len(b.Replicas) > 0 {
				draws["replicas"]++
			}
			if b.Whole > 0 {
				draws["whole"]++
			}
			if len(b.Pre) > 0 {
				draws["adopt"]++
				if b.Kind != "shared" {
					t.Fatalf("scenario %d: a secret made by hand in bucket %s", i, b.Kind)
				}
				for rev := range b.Docs {
					if _, ok := b.Desired(rev)[b.Adopt[0]]; !ok {
						t.Fatalf("scenario %d: adopt entry %s names no document of revision %d", i, b.Adopt[0], rev)
					}
				}
			}
			if b.Drifted > 0 {
				draws["drift"]++
				if b.Kind != "shared" && b.Kind != "parameter-store" { // both in the harness client's account and Region
					t.Fatalf("scenario %d: drift in bucket %s", i, b.Kind)
				}
			}
			for rev := range b.Docs {
				for _, d := range b.Docs[rev] {
					if d.Format.Whole() && !bytes.Equal(d.Plain, d.Canon) {
						t.Fatalf("scenario %d: whole value's Canon is not its bytes", i)
					}
				}
			}
		}
	}
	for _, k := range []string{"replicas", "whole", "adopt", "drift"} {
		if draws[k] == 0 {
			t.Fatalf("no sibling drew %s in 200 scenarios: %v", k, draws)
		}
	}
}
