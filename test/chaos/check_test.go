package chaos

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/logging"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

const (
	shaA = "1111111111111111111111111111111111111111"
	shaB = "2222222222222222222222222222222222222222"
	tokA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	tokB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func doc(path, canon string) Doc {
	return Doc{Path: path, Format: canonical.JSON, Plain: []byte(canon), Canon: []byte(canon)}
}

func sp(s string) *string { return &s }

func reportJSON(rev, status, verification string, ops int) []byte {
	return fmt.Appendf(nil, `{"schema_version":"sops-aws-sync/report/v1","tool_version":"dev","git_revision":%q,"status":%q,`+
		`"counts":{"create":%d,"update":0,"restore":0,"schedule_delete":0,"unchanged":1,"conflicts":0},"verification":%q,"duration_ms":5}`,
		rev, status, ops, verification)
}

// cleanEvidence is a small scenario played by an ideal tool: p/a updated,
// p/b created, p/old scheduled for deletion, p/f (foreign) untouched.
func cleanEvidence() *Evidence {
	sc := model.Scope{RepositoryID: "o/r", SourceRoot: "secrets", Prefix: "p"}
	a0, a1, b := `{"a":0}`, `{"a":1}`, `{"b":1}`
	s := &Scenario{
		Scope: sc, RecoveryWindowDays: 10,
		Revisions: []Revision{
			{Docs: map[string]Doc{"secrets/a.sops.json": doc("secrets/a.sops.json", a0)}},
			{Docs: map[string]Doc{"secrets/a.sops.json": doc("secrets/a.sops.json", a1), "secrets/b.sops.yaml": doc("secrets/b.sops.yaml", b)}},
		},
		Pre: []PreSecret{
			{Name: "p/a", Tags: sc.Tags("secrets/a.sops.json"), Kind: "synced"},
			{Name: "p/old", Tags: sc.Tags("secrets/old.sops.json"), Kind: "synced"},
			{Name: "p/f", Foreign: true, Kind: "foreign-untagged"},
		},
		Runs: []Run{
			{Command: "sync", Revision: 1, Faults: emulator.Faults{ListLagMS: 100}},
			{Command: "sync", Revision: 1, Final: true},
			{Command: "plan", Revision: 1, Final: true},
		},
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	secret := func(name string, tags map[string]string, vs ...emulator.VersionDump) emulator.SecretDump {
		if tags == nil {
			tags = map[string]string{}
		}
		return emulator.SecretDump{Name: name, ARN: "arn:aws:secretsmanager:us-east-1:123456789012:secret:" + name + "-AbCdEf", Tags: tags, Versions: vs}
	}
	ver := func(id, val string, stages ...string) emulator.VersionDump {
		return emulator.VersionDump{VersionID: id, SecretString: sp(val), Stages: stages, CreatedDate: t0}
	}
	pre := emulator.StateDump{Secrets: []emulator.SecretDump{
		secret("p/a", sc.Tags("secrets/a.sops.json"), ver("v-a0", a0, "AWSCURRENT")),
		secret("p/old", sc.Tags("secrets/old.sops.json"), ver("v-old", `{"o":1}`, "AWSCURRENT")),
		secret("p/f", nil, ver("v-f1", `{"f":1}`, "AWSPREVIOUS"), ver("v-f2", `{"f":2}`, "AWSCURRENT")),
	}}
	deleted := t0.Add(time.Hour)
	old := secret("p/old", sc.Tags("secrets/old.sops.json"), ver("v-old", `{"o":1}`, "AWSCURRENT"))
	old.DeletedDate = &deleted
	post := emulator.StateDump{Secrets: []emulator.SecretDump{
		secret("p/a", sc.Tags("secrets/a.sops.json"), ver("v-a0", a0, "AWSPREVIOUS"), ver(tokA, a1, "AWSCURRENT")),
		old,
		secret("p/f", nil, ver("v-f1", `{"f":1}`, "AWSPREVIOUS"), ver("v-f2", `{"f":2}`, "AWSCURRENT")),
		secret("p/b", sc.Tags("secrets/b.sops.yaml"), ver(tokB, b, "AWSCURRENT")),
	}}
	before := emulator.StateDump{Secrets: slices.Clone(post.Secrets)}
	after := emulator.StateDump{Secrets: []emulator.SecretDump{post.Secrets[0], post.Secrets[2], post.Secrets[3]}}
	log := []byte(`{"time":"t","level":"INFO","msg":"done","phase":"complete","status":"converged"}` + "\n")
	return &Evidence{
		Scenario: s, Pre: pre, Post: post, BeforePurge: &before, AfterPurge: &after,
		Calls: []Call{
			{Run: 1, Op: "ListSecrets", Status: 200},
			{Run: 1, Op: "PutSecretValue", Target: "p/a", Token: tokA, Status: 200},
			{Run: 1, Op: "CreateSecret", Target: "p/b", Token: tokB, Status: 200},
			{Run: 1, Op: "DeleteSecret", Target: post.Secrets[1].ARN, Window: 10, Status: 200},
			{Run: 2, Op: "DescribeSecret", Target: "p/a", Status: 200},
			{Run: 3, Op: "DescribeSecret", Target: "p/a", Status: 200},
		},
		Runs: []RunResult{
			{Run: s.Runs[0], Revision: shaB, Exit: 0, Stdout: log, Report: reportJSON(shaB, "converged", "converged", 1)},
			{Run: s.Runs[1], Revision: shaB, Exit: 0, Stdout: log, Report: reportJSON(shaB, "converged", "converged", 0)},
			{Run: s.Runs[2], Revision: shaB, Exit: 0, Stdout: log, Report: reportJSON(shaB, "converged", "not-run", 0)},
		},
	}
}

func kinds(vs []Violation) []string {
	var k []string
	for _, v := range vs {
		k = append(k, v.Kind)
	}
	return k
}

func TestCheckAcceptsAnIdealRun(t *testing.T) {
	if vs := Check(*cleanEvidence()); len(vs) != 0 {
		t.Fatalf("violations on an ideal run: %v", vs)
	}
}

// TestCheckCatchesEveryBrokenInvariant breaks one promise at a time and
// expects exactly the matching violation kind.
func TestCheckCatchesEveryBrokenInvariant(t *testing.T) {
	find := func(d emulator.StateDump, name string) int {
		for i, s := range d.Secrets {
			if s.Name == name {
				return i
			}
		}
		panic(name)
	}
	cases := map[string]func(ev *Evidence){
		"foreign-changed": func(ev *Evidence) {
			i := find(ev.Post, "p/f")
			ev.Post.Secrets[i].Tags = map[string]string{"x": "y"}
		},
		"force-delete": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Op: "DeleteSecret", Target: "p/old", Force: true, Window: 10})
		},
		"deletion-window": func(ev *Evidence) { ev.Calls[3].Window = 7 },
		"version-churn": func(ev *Evidence) {
			i := find(ev.Post, "p/a")
			s := &ev.Post.Secrets[i]
			s.Versions = append([]emulator.VersionDump{s.Versions[0], {VersionID: "dup", SecretString: sp(`{"a":1}`)}}, s.Versions[1:]...)
		},
		"desired-value": func(ev *Evidence) {
			i := find(ev.Post, "p/b")
			ev.Post.Secrets[i].Versions[0].SecretString = sp(`{"b": 1}`)
		},
		"desired-staging": func(ev *Evidence) {
			i := find(ev.Post, "p/a")
			ev.Post.Secrets[i].Versions[0].Stages = []string{"AWSCURRENT"}
		},
		"desired-tags": func(ev *Evidence) {
			i := find(ev.Post, "p/b")
			ev.Post.Secrets[i].Tags = map[string]string{model.TagManagedBy: model.ManagedByValue}
		},
		"exit-status-mismatch": func(ev *Evidence) { ev.Runs[0].Report = reportJSON(shaB, "apply-failed", "not-run", 1) },
		"verification-mismatch": func(ev *Evidence) {
			ev.Runs[0].Exit = 6
			ev.Runs[0].Report = reportJSON(shaB, "verification-failed", "inconclusive", 1)
		},
		"plan-mutated": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 3, Op: "RestoreSecret", Target: "p/old"})
		},
		"token-reuse": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 2, Op: "PutSecretValue", Target: "p/a", Token: tokA})
		},
		"owned-not-deleted": func(ev *Evidence) {
			i := find(ev.Post, "p/old")
			ev.Post.Secrets[i].DeletedDate = nil
		},
		"no-convergence": func(ev *Evidence) {
			ev.Runs[1].Exit = 6
			ev.Runs[1].Report = reportJSON(shaB, "verification-inconclusive", "inconclusive", 0)
		},
		"not-idempotent": func(ev *Evidence) {
			ev.Runs[2].Report = reportJSON(shaB, "drift", "not-run", 1)
		},
		"stderr-output": func(ev *Evidence) { ev.Runs[1].Stderr = []byte("panic: boom\n") },
		"log-vocabulary": func(ev *Evidence) {
			ev.Runs[1].Stdout = append(ev.Runs[1].Stdout, []byte(`{"time":"t","level":"INFO","msg":"x","value":"y"}`+"\n")...)
		},
		"unexpected-secret": func(ev *Evidence) {
			ev.Post.Secrets = append(ev.Post.Secrets, emulator.SecretDump{Name: "p/outside/x"})
		},
		"phase-order": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Op: "CreateSecret", Target: "p/c", Token: "cccccccccccccccccccccccccccccccccccc"})
		},
		"foreign-write": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Op: "DeleteSecret", Target: ev.Post.Secrets[find(ev.Post, "p/f")].ARN, Window: 10, Status: 400})
		},
		"forbidden-operation": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Op: "UntagResource", Target: "p/a"})
		},
		"report-missing":     func(ev *Evidence) { ev.Runs[0].Report = nil },
		"report-invalid":     func(ev *Evidence) { ev.Runs[0].Report = []byte(`{"status":"converged"}`) },
		"report-revision":    func(ev *Evidence) { ev.Runs[0].Report = reportJSON(shaA, "converged", "converged", 1) },
		"undocumented-exit":  func(ev *Evidence) { ev.Runs[0].Exit = 1 },
		"history-rewritten":  func(ev *Evidence) { ev.Post.Secrets[find(ev.Post, "p/a")].Versions[0].SecretString = sp("x") },
		"unexpected-invalid": func(ev *Evidence) { ev.Runs[0].Exit = 3; ev.Runs[0].Report = reportJSON(shaB, "invalid", "not-run", 0) },
		"spurious-conflict": func(ev *Evidence) {
			ev.Runs[0].Exit = 4
			ev.Runs[0].Report = reportJSON(shaB, "conflict", "not-run", 0)
		},
		"retagged":        func(ev *Evidence) { ev.Post.Secrets[find(ev.Post, "p/a")].Tags = map[string]string{} },
		"desired-missing": func(ev *Evidence) { ev.Post.Secrets = slices.Delete(ev.Post.Secrets, 3, 4) },
		"token-invalid":   func(ev *Evidence) { ev.Calls[1].Token = "short" },
		"desired-pending": func(ev *Evidence) { d := time.Now(); ev.Post.Secrets[find(ev.Post, "p/a")].DeletedDate = &d },
	}
	cases["redeleted"] = func(ev *Evidence) {
		i, j := find(ev.Pre, "p/old"), find(ev.Post, "p/old")
		d0 := ev.Post.Secrets[j].DeletedDate.Add(-time.Minute)
		ev.Pre.Secrets[i].DeletedDate = &d0
	}
	cases["deletion-window/clock"] = func(ev *Evidence) { ev.AfterPurge = ev.BeforePurge }
	cases["force-delete/vanished"] = func(ev *Evidence) { ev.Post.Secrets = slices.Delete(ev.Post.Secrets, 2, 3) }
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			ev := cleanEvidence()
			mutate(ev)
			want, _, _ := strings.Cut(name, "/")
			got := kinds(Check(*ev))
			if !slices.Contains(got, want) {
				t.Fatalf("violations %v do not include %s", got, want)
			}
		})
	}
}

// TestCheckIgnoresOutputsOfKilledRuns: a SIGKILLed process has no exit
// code, report or clean stderr to judge; only a torn report would count.
func TestCheckIgnoresOutputsOfKilledRuns(t *testing.T) {
	ev := cleanEvidence()
	ev.Runs[0].Killed, ev.Runs[0].Exit, ev.Runs[0].Report, ev.Runs[0].Stderr = true, -1, nil, []byte("x")
	if vs := Check(*ev); len(vs) != 0 {
		t.Fatalf("violations for a killed run: %v", vs)
	}
	ev.Runs[0].Report = []byte(`{"schema_version":`)
	if got := kinds(Check(*ev)); !slices.Equal(got, []string{"report-invalid"}) {
		t.Fatalf("torn report after a kill: %v, want report-invalid", got)
	}
}

// TestCheckAllowsOneRepairPerOutOfBandChange: a console edit between runs
// adds its own version and one repair; anything more is churn.
func TestCheckAllowsOneRepairPerOutOfBandChange(t *testing.T) {
	ev := cleanEvidence()
	a := &ev.Post.Secrets[0]
	a.Versions = []emulator.VersionDump{a.Versions[0],
		{VersionID: "console", SecretString: sp(`{"x":1}`)},
		a.Versions[1],
		{VersionID: "repair", SecretString: sp(`{"a":1}`), Stages: []string{"AWSCURRENT"}}}
	a.Versions[2].Stages = nil
	ev.Drifts = []AppliedDrift{{Drift: Drift{Name: "p/a", Kind: "value"}, Run: 2, Applied: true}}
	if vs := Check(*ev); len(vs) != 0 {
		t.Fatalf("violations with one console edit and one repair: %v", vs)
	}
	ev.Drifts[0].Applied = false
	if got := kinds(Check(*ev)); !slices.Contains(got, "version-churn") {
		t.Fatalf("violations %v do not include version-churn", got)
	}
}

// TestCheckCatchesAContactedKeyService: a request to the key-service
// listener is a violation, also in a killed run.
func TestCheckCatchesAContactedKeyService(t *testing.T) {
	ev := cleanEvidence()
	ev.Runs[0].KeyServiceRequests = 1
	if got := kinds(Check(*ev)); !slices.Equal(got, []string{"key-service-contacted"}) {
		t.Fatalf("got %v, want key-service-contacted", got)
	}
	ev.Runs[0].Killed, ev.Runs[0].Exit, ev.Runs[0].Report, ev.Runs[0].Stderr = true, -1, nil, nil
	if got := kinds(Check(*ev)); !slices.Equal(got, []string{"key-service-contacted"}) {
		t.Fatalf("killed run: got %v, want key-service-contacted", got)
	}
}

// TestRegression_ValueThatComesBackIsAWrite: a whole value switched to
// binary in one revision and back to the text the Pre state held in the
// next is two logical writes (seed 3, scenario 84 of a 300-scenario
// campaign flagged version-churn: the check dropped the Pre value from the
// targets as if returning to it cost nothing). A third version stays
// churn; a string and a binary of the same bytes are different values.
func TestRegression_ValueThatComesBackIsAWrite(t *testing.T) {
	find := func(d emulator.StateDump, name string) int {
		return slices.IndexFunc(d.Secrets, func(s emulator.SecretDump) bool { return s.Name == name })
	}
	ev := cleanEvidence()
	s := ev.Scenario
	text := "-----BEGIN X-----\n" + `{"a":0}` + "\n-----END X-----\n"
	bin := Doc{Path: "secrets/a.sops.bin", Format: canonical.Binary, Plain: []byte(text), Canon: []byte(text)}
	txt := Doc{Path: "secrets/a.sops.txt", Format: canonical.Text, Plain: []byte(text), Canon: []byte(text)}
	s.Revisions = []Revision{
		{Docs: map[string]Doc{txt.Path: txt}},
		{Docs: map[string]Doc{bin.Path: bin, "secrets/b.sops.yaml": s.Revisions[1].Docs["secrets/b.sops.yaml"]}},
		{Docs: map[string]Doc{txt.Path: txt, "secrets/b.sops.yaml": s.Revisions[1].Docs["secrets/b.sops.yaml"]}},
	}
	s.Runs[1].Revision, s.Runs[2].Revision = 2, 2
	ev.Runs[1].Run, ev.Runs[2].Run = s.Runs[1], s.Runs[2]
	for _, st := range []*emulator.StateDump{&ev.Pre, &ev.Post} {
		a := &st.Secrets[find(*st, "p/a")]
		a.Versions[0].SecretString = sp(text)
	}
	a := &ev.Post.Secrets[find(ev.Post, "p/a")]
	a.Versions = []emulator.VersionDump{a.Versions[0],
		{VersionID: tokA, SecretBinary: []byte(text), Stages: []string{"AWSPREVIOUS"}},
		{VersionID: "back", SecretString: sp(text), Stages: []string{"AWSCURRENT"}}}
	a.Versions[0].Stages = nil
	for _, v := range Check(*ev) {
		if v.Secret == "p/a" {
			t.Fatalf("text → binary → the same text: %v", v)
		}
	}
	a.Versions = append(a.Versions[:2:2], emulator.VersionDump{VersionID: "dup", SecretString: sp(text)}, a.Versions[2])
	if got := kinds(Check(*ev)); !slices.Contains(got, "version-churn") {
		t.Fatalf("violations %v do not include version-churn", got)
	}
}

// replicaEvidence is cleanEvidence with replica-regions eu-west-1 on every
// run: p/a and p/b have their replica there, InSync; p/old had one, removed
// before its deletion in run 1.
func replicaEvidence() *Evidence {
	ev := cleanEvidence()
	s := ev.Scenario
	for i := range s.Runs {
		s.Runs[i].Replicas = []model.Replica{{Region: "eu-west-1"}}
	}
	for i, sd := range ev.Post.Secrets {
		if sd.Name == "p/a" || sd.Name == "p/b" {
			ev.Post.Secrets[i].Region = ChaosRegion
			ev.Post.Secrets[i].ReplicaRegions = []string{"eu-west-1"}
			ev.Post.Secrets[i].ReplicationStatus = []emulator.ReplicaStatusDump{{Region: "eu-west-1", Status: "InSync"}}
			rep := sd
			rep.Region, rep.Replica, rep.PrimaryRegion = "eu-west-1", true, ChaosRegion
			ev.Post.Secrets = append(ev.Post.Secrets, rep)
		}
	}
	old := ev.Calls[3]
	ev.Calls = append(ev.Calls[:3:3],
		Call{Run: 1, Op: "RemoveRegionsFromReplication", Target: old.Target, RemoveRegions: []string{"eu-west-1"}, Region: ChaosRegion, Status: 200},
		old,
		Call{Run: 1, Op: "ReplicateSecretToRegions", Target: "p/a", AddRegions: []string{"eu-west-1"}, Region: ChaosRegion, Status: 200},
	)
	ev.Calls[2].AddRegions = []string{"eu-west-1"} // p/b created with its replica
	ev.Calls = append(ev.Calls, cleanEvidence().Calls[4:]...)
	for i := range ev.Runs {
		ev.Runs[i].Run = s.Runs[i]
	}
	return ev
}

// TestCheckReplicaInvariants: the replica invariants (SPEC §12) accept an
// ideal run and catch each broken promise: a write signed for a replica's
// Region, a replica added in a Region the run did not configure or with
// ForceOverwriteReplicaSecret, a configured replica of a desired secret
// removed, more deletions than --max-deletions, a final state without the
// configured replicas, a deleted secret keeping replicas; a run that
// --max-deletions blocked without a write is not a finding.
func TestCheckReplicaInvariants(t *testing.T) {
	if vs := Check(*replicaEvidence()); len(vs) != 0 {
		t.Fatalf("violations on an ideal replica run: %v", vs)
	}
	two := 2
	cases := map[string]func(ev *Evidence){
		"replica-write": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Op: "PutSecretValue", Target: "p/a", Token: tokA, Region: "eu-west-1", Status: 400})
		},
		"replica-config": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Op: "ReplicateSecretToRegions", Target: "p/a", AddRegions: []string{"us-west-2"}})
		},
		"replica-config/force": func(ev *Evidence) { ev.Calls[5].ForceOverwrite = true },
		"replica-removal": func(ev *Evidence) {
			ev.Calls = append(ev.Calls, Call{Run: 1, Op: "RemoveRegionsFromReplication", Target: "p/a", RemoveRegions: []string{"eu-west-1"}})
		},
		"replica-removal/unconfigured": func(ev *Evidence) { ev.Scenario.Runs[0].Replicas = nil; ev.Runs[0].Run.Replicas = nil },
		"deletion-limit": func(ev *Evidence) {
			one := 1
			ev.Runs[0].Run.MaxDeletions = &one // a removal and a deletion: 2
		},
		"desired-replicas": func(ev *Evidence) {
			for i, sd := range ev.Post.Secrets {
				if sd.Name == "p/b" && sd.Region == ChaosRegion {
					ev.Post.Secrets[i].ReplicationStatus[0].Status = "Failed"
				}
			}
		},
		"desired-replicas/missing": func(ev *Evidence) { ev.Post.Secrets = ev.Post.Secrets[:len(ev.Post.Secrets)-1] },
		"replica-of-deleted": func(ev *Evidence) {
			for i, sd := range ev.Post.Secrets {
				if sd.Name == "p/old" {
					ev.Post.Secrets[i].ReplicaRegions = []string{"eu-west-1"}
				}
			}
		},
		"unexpected-secret": func(ev *Evidence) {
			ev.Post.Secrets = append(ev.Post.Secrets, emulator.SecretDump{Name: "p/a", Region: "us-west-2"})
		},
		"unexpected-invalid": func(ev *Evidence) {
			ev.Runs[0].Run.MaxDeletions = &two
			ev.Runs[0].Exit = 3
			ev.Runs[0].Report = reportJSON(shaB, "invalid", "not-run", 0)
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			ev := replicaEvidence()
			mutate(ev)
			want, _, _ := strings.Cut(name, "/")
			if got := kinds(Check(*ev)); !slices.Contains(got, want) {
				t.Fatalf("violations %v do not include %s", got, want)
			}
		})
	}
	// --max-deletions blocked the run before any write: not a finding.
	ev := replicaEvidence()
	zero := 0
	ev.Scenario.Runs[0].MaxDeletions = &zero
	ev.Runs[0].Run = ev.Scenario.Runs[0]
	ev.Runs[0].Exit = 3
	ev.Runs[0].Report = reportJSON(shaB, "invalid", "not-run", 0)
	var kept []Call
	for _, c := range ev.Calls {
		if c.Run != 1 || !Mutating(c.Op) {
			kept = append(kept, c)
		}
	}
	ev.Calls = kept
	for _, v := range Check(*ev) {
		if v.Kind == "unexpected-invalid" || v.Kind == "deletion-limit" {
			t.Fatalf("a run --max-deletions blocked before any write is a finding: %v", v)
		}
	}
}

// TestRegression_ChaosLogVocabularyLagsTheLogger: the checker kept its own
// copy of the log vocabulary, so the day the product's logger allowed
// "scope" every chaos scenario failed with log-vocabulary. The checker now
// allows exactly what the logger allows (logging.Fields), and still flags
// any other key.
func TestRegression_ChaosLogVocabularyLagsTheLogger(t *testing.T) {
	for k := range logging.Fields {
		ev := cleanEvidence()
		ev.Runs[0].Stdout = []byte(`{"time":"t","level":"INFO","msg":"done","` + k + `":"x"}` + "\n")
		if vs := Check(*ev); len(vs) != 0 {
			t.Errorf("field %q the logger allows: violations %v", k, vs)
		}
	}
	ev := cleanEvidence()
	ev.Runs[0].Stdout = []byte(`{"time":"t","level":"INFO","msg":"done","account":"x"}` + "\n")
	if got := kinds(Check(*ev)); !slices.Contains(got, "log-vocabulary") {
		t.Errorf("a field outside the vocabulary: violations %v, want log-vocabulary", got)
	}
}

// adoptEvidence is cleanEvidence with a secret made by hand, p/h (tag
// team=x, one version), that revision 1 maps to and every run names in
// adopt: run 1 tags it with the three ownership tags, then writes the
// document's value (SPEC §11).
func adoptEvidence() *Evidence {
	ev := cleanEvidence()
	s := ev.Scenario
	sc := s.Scope
	h0, h1 := `{"h":0}`, `{"h":1}`
	const tokH = "hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh"
	s.Revisions[1].Docs["secrets/h.sops.json"] = doc("secrets/h.sops.json", h1)
	s.Pre = append(s.Pre, PreSecret{Name: "p/h", Foreign: true, Adoptable: true, Tags: map[string]string{"team": "x"}, Kind: "adoptable-differs"})
	for i := range s.Runs {
		s.Runs[i].Adopt = []string{"p/h"}
		ev.Runs[i].Run = s.Runs[i]
	}
	arn := "arn:aws:secretsmanager:us-east-1:123456789012:secret:p/h-AbCdEf"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pre := emulator.SecretDump{Name: "p/h", ARN: arn, Tags: map[string]string{"team": "x"},
		Versions: []emulator.VersionDump{{VersionID: "v-h", SecretString: sp(h0), Stages: []string{"AWSCURRENT"}, CreatedDate: t0}}}
	post := pre
	post.Tags = sc.Tags("secrets/h.sops.json")
	post.Tags["team"] = "x"
	post.Versions = []emulator.VersionDump{{VersionID: "v-h", SecretString: sp(h0), Stages: []string{"AWSPREVIOUS"}, CreatedDate: t0},
		{VersionID: tokH, SecretString: sp(h1), Stages: []string{"AWSCURRENT"}, CreatedDate: t0}}
	ev.Pre.Secrets = append(ev.Pre.Secrets, pre)
	ev.Post.Secrets = append(ev.Post.Secrets, post)
	ev.BeforePurge.Secrets = append(ev.BeforePurge.Secrets, post)
	ev.AfterPurge.Secrets = append(ev.AfterPurge.Secrets, post)
	ev.Calls = append(ev.Calls[:3:3], append([]Call{
		{Run: 1, Op: "TagResource", Target: arn, TagKeys: []string{model.TagManagedBy, model.TagScope, model.TagSource}, Status: 200},
		{Run: 1, Op: "PutSecretValue", Target: arn, Token: tokH, HasValue: true, Status: 200},
	}, ev.Calls[3:]...)...)
	return ev
}

// TestCheckAdoptionInvariants: an ideal adoption passes; a write on a
// hand-made secret the run does not name in adopt, a value written before
// the ownership tags, an ownership TagResource missing a tag and a tag of
// its own lost are each caught.
func TestCheckAdoptionInvariants(t *testing.T) {
	if vs := Check(*adoptEvidence()); len(vs) != 0 {
		t.Fatalf("violations on an ideal adoption: %v", vs)
	}
	cases := map[string]func(ev *Evidence){
		"foreign-write": func(ev *Evidence) {
			for i := range ev.Runs {
				ev.Runs[i].Run.Adopt = nil
			}
		},
		"adopt-order": func(ev *Evidence) { ev.Calls[3], ev.Calls[4] = ev.Calls[4], ev.Calls[3] },
		"adopt-tags":  func(ev *Evidence) { ev.Calls[3].TagKeys = []string{model.TagManagedBy, model.TagScope} },
		"retagged": func(ev *Evidence) {
			i := len(ev.Post.Secrets) - 1
			delete(ev.Post.Secrets[i].Tags, "team")
		},
	}
	for kind, breakIt := range cases {
		t.Run(kind, func(t *testing.T) {
			ev := adoptEvidence()
			breakIt(ev)
			if got := kinds(Check(*ev)); !slices.Contains(got, kind) {
				t.Fatalf("want a %s violation, got %v", kind, got)
			}
		})
	}
}
