package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// twoReplicas is replica-regions "eu-west-1,us-west-2" for a scope in the
// emulator's default Region us-east-1.
var twoReplicas = []model.Replica{{Region: "eu-west-1"}, {Region: "us-west-2"}}

func (e *env) replicaCfg(mode engine.Mode, conc int, replicas []model.Replica) engine.Config {
	cfg := e.cfg(mode, conc)
	cfg.Replicas = replicas
	return cfg
}

// secretIn returns the emulator's record of name in region (ok false when
// there is none).
func (e *env) secretIn(t *testing.T, region, name string) (emulator.SecretDump, bool) {
	t.Helper()
	for _, s := range e.srv.State(t).Secrets {
		if s.Name == name && s.Region == region {
			return s, true
		}
	}
	return emulator.SecretDump{}, false
}

func statusesOf(s emulator.SecretDump) map[string]string {
	out := map[string]string{}
	for _, r := range s.ReplicationStatus {
		out[r.Region] = r.Status
	}
	return out
}

// clockPort moves the emulator clock forward by step on every
// DescribeSecret once armed: replication lag passes while the engine polls,
// without a sleep.
type clockPort struct {
	Port
	srv interface {
		AdvanceClock(testing.TB, time.Duration)
	}
	t     *testing.T
	step  time.Duration
	armed atomic.Bool
	n     atomic.Int64
}

func (c *clockPort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	if c.armed.Load() {
		c.n.Add(1)
		c.srv.AdvanceClock(c.t, c.step)
	}
	return c.Port.Describe(ctx, id)
}

// TestReplicas_CreateCarriesReplicasAndVerifiesInSyncAfterLag: a create
// carries AddReplicaRegions (one CreateSecret, no ReplicateSecretToRegions);
// verification polls while the replicas are InProgress and converges once
// the emulator's replication lag has passed on its own clock.
func TestReplicas_CreateCarriesReplicasAndVerifiesInSyncAfterLag(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.srv.SetFaults(t, emulator.Faults{ReplicationLagMS: 2000})
		cp := &clockPort{Port: e.port, srv: e.srv, t: t, step: 250 * time.Millisecond}
		cp.armed.Store(true)
		st := state(doc{"db", `{"v":1}`})

		res := e.runPort(t, e.replicaCfg(engine.ModePlan, conc, twoReplicas), st, cp)
		wantResult(t, res, vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Create: 1})
		if got := res.Plan[0].ReplicasAdded; !slices.Equal(got, []string{"eu-west-1", "us-west-2"}) {
			t.Fatalf("plan shows replicas added %v", got)
		}

		before := e.calls(t)
		res = e.runPort(t, e.replicaCfg(engine.ModeSync, conc, twoReplicas), st, cp)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
		after := e.calls(t)
		if after["CreateSecret"]-before["CreateSecret"] != 1 || after["ReplicateSecretToRegions"]-before["ReplicateSecretToRegions"] != 0 {
			t.Fatalf("calls %v: want one CreateSecret carrying the replicas", after)
		}
		if cp.n.Load() < 8 {
			t.Errorf("verification converged after %d describes: the 2 s lag at 250 ms per describe needs at least 8", cp.n.Load())
		}
		primary, _ := e.secretIn(t, "us-east-1", nameOf("db"))
		if got := statusesOf(primary); got["eu-west-1"] != "InSync" || got["us-west-2"] != "InSync" {
			t.Fatalf("replication status %v", got)
		}
		for _, region := range []string{"eu-west-1", "us-west-2"} {
			r, ok := e.secretIn(t, region, nameOf("db"))
			if !ok || !r.Replica || current(r) != `{"v":1}` {
				t.Fatalf("%s: replica %+v", region, r)
			}
		}
		cp.armed.Store(false)
		res = e.run(t, e.replicaCfg(engine.ModeSync, conc, twoReplicas), st)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 1})
	})
}

// TestReplicas_InProgressAtTimeoutIsInconclusive: a replica still
// InProgress when the verification timeout passes is inconclusive (exit 6),
// with its class.
func TestReplicas_InProgressAtTimeoutIsInconclusive(t *testing.T) {
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{ReplicationLagMS: 3_600_000})
	cfg := e.replicaCfg(engine.ModeSync, 4, twoReplicas)
	// The timeout passes on the engine's clock (the lag, an hour, on the
	// emulator's).
	cfg.VerificationTimeout, cfg.Clock = time.Second, &stepClock{now: time.Unix(1_700_000_000, 0)}
	res := e.run(t, cfg, state(doc{"db", `{"v":1}`}))
	wantResult(t, res, vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, vocab.Counts{Create: 1})
	if !hasClass(res, diag.VerifyReplicaInProgress) {
		t.Fatalf("diagnostics %+v", res.Diagnostics)
	}
}

func hasClass(res engine.Result, class string) bool {
	return slices.ContainsFunc(res.Diagnostics, func(d diag.Diagnostic) bool { return d.Class == class })
}

// TestReplicas_FailedReplicaIsVerificationFailed: a replica failure fault
// ends verification-failed (exit 6) with class verify:replica-failed; AWS's
// status message never reaches the log or the result.
func TestReplicas_FailedReplicaIsVerificationFailed(t *testing.T) {
	const canary = "CANARY-status-message-7731"
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "us-west-2", Message: canary}}})
	res := e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), state(doc{"db", `{"v":1}`}))
	wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Create: 1})
	if !hasClass(res, diag.VerifyReplicaFailed) {
		t.Fatalf("diagnostics %+v", res.Diagnostics)
	}
	if strings.Contains(e.logs.String(), canary) {
		t.Fatal("the replica's status message reached the log")
	}
	if !strings.Contains(e.logs.String(), `"region":"us-west-2"`) {
		t.Fatal("the failed replica's Region is not logged")
	}
	// The next run plans nothing to write and still reports the failure:
	// plan as drift with a warning naming the Region, sync as
	// verification-failed.
	e.srv.SetFaults(t, emulator.Faults{})
	res = e.run(t, e.replicaCfg(engine.ModePlan, 4, twoReplicas), state(doc{"db", `{"v":1}`}))
	wantResult(t, res, vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Unchanged: 1})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Class != diag.WarningReplicasNotInSync ||
		res.Diagnostics[0].Summary != "1 configured replica is not InSync (1 Failed, 0 InProgress); Failed in us-west-2" {
		t.Fatalf("plan diagnostics %+v", res.Diagnostics)
	}
	res = e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), state(doc{"db", `{"v":1}`}))
	wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Unchanged: 1})
}

// TestReplicas_RegionAddedAndDropped: a Region added is replicated (update,
// reason replicas); a Region dropped is a removal counted against
// --max-deletions: blocked by 0, applied with 1.
func TestReplicas_RegionAddedAndDropped(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		st := state(doc{"db", `{"v":1}`})
		one := []model.Replica{{Region: "eu-west-1"}}
		wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, conc, one), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})

		before := e.calls(t)
		res := e.run(t, e.replicaCfg(engine.ModeSync, conc, twoReplicas), st)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
		after := e.calls(t)
		if after["ReplicateSecretToRegions"]-before["ReplicateSecretToRegions"] != 1 || after["PutSecretValue"] != before["PutSecretValue"] {
			t.Fatalf("calls %v: want one ReplicateSecretToRegions and no new version", after)
		}
		if _, ok := e.secretIn(t, "us-west-2", nameOf("db")); !ok {
			t.Fatal("no replica in the added Region")
		}

		zero, oneDeletion := 0, 1
		cfg := e.replicaCfg(engine.ModeSync, conc, one)
		cfg.MaxDeletions = &zero
		before = e.calls(t)
		res = e.run(t, cfg, st)
		wantResult(t, res, vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{})
		if !hasClass(res, diag.GateMaxDeletions) || mutations(before, e.calls(t)) != 0 || e.calls(t)["RemoveRegionsFromReplication"] != 0 {
			t.Fatalf("a replica removal must be blocked by --max-deletions 0: %+v", res)
		}
		if got := res.Plan[0].ReplicasRemoved; !slices.Equal(got, []string{"us-west-2"}) {
			t.Fatalf("plan shows removals %v", got)
		}
		cfg.MaxDeletions = &oneDeletion
		res = e.run(t, cfg, st)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
		if e.calls(t)["RemoveRegionsFromReplication"] != 1 {
			t.Fatal("want one RemoveRegionsFromReplication")
		}
		if _, ok := e.secretIn(t, "us-west-2", nameOf("db")); ok {
			t.Fatal("the dropped Region's replica is still there")
		}
		if _, ok := e.secretIn(t, "eu-west-1", nameOf("db")); !ok {
			t.Fatal("the kept replica was removed")
		}
	})
}

// TestReplicas_DeleteThenRestore: a secret no longer desired loses its
// replicas, then is scheduled for deletion (AWS refuses to delete a primary
// with replicas); desired again it is restored, then replicated.
func TestReplicas_DeleteThenRestore(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		st := state(doc{"db", `{"v":1}`}, doc{"keep", `{"v":2}`})
		wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, conc, twoReplicas), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})

		fewer := state(doc{"keep", `{"v":2}`})
		three := 3
		cfg := e.replicaCfg(engine.ModeSync, conc, twoReplicas)
		cfg.MaxDeletions = &three
		res := e.run(t, cfg, fewer)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{ScheduleDelete: 1, Unchanged: 1})
		primary, _ := e.secretIn(t, "us-east-1", nameOf("db"))
		if primary.DeletedDate == nil || len(primary.ReplicaRegions) != 0 {
			t.Fatalf("db: deleted %v replicas %v", primary.DeletedDate, primary.ReplicaRegions)
		}
		for _, region := range []string{"eu-west-1", "us-west-2"} {
			if _, ok := e.secretIn(t, region, nameOf("db")); ok {
				t.Fatalf("%s: replica left behind", region)
			}
		}

		before := e.calls(t)
		res = e.run(t, e.replicaCfg(engine.ModeSync, conc, twoReplicas), st)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Restore: 1, Update: 1, Unchanged: 1})
		after := e.calls(t)
		if after["RestoreSecret"]-before["RestoreSecret"] != 1 || after["ReplicateSecretToRegions"]-before["ReplicateSecretToRegions"] != 1 {
			t.Fatalf("calls %v: want restore then replicate", after)
		}
		primary, _ = e.secretIn(t, "us-east-1", nameOf("db"))
		if !slices.Equal(primary.ReplicaRegions, []string{"eu-west-1", "us-west-2"}) {
			t.Fatalf("after restore: replicas %v", primary.ReplicaRegions)
		}
	})
}

// TestReplicas_ClashInTargetRegionIsConflict: a same-name secret in a
// replica Region blocks the plan (replica-clash) before any write.
func TestReplicas_ClashInTargetRegionIsConflict(t *testing.T) {
	e := newEnv(t)
	other := e.srv.ClientIn(t, "us-west-2", "AKIDEMULATOR0000DEFAULT")
	if _, err := other.CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{Name: aws.String(nameOf("db")), SecretString: aws.String("x")}); err != nil {
		t.Fatal(err)
	}
	before := e.calls(t)
	res := e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), state(doc{"db", `{"v":1}`}))
	wantResult(t, res, vocab.StatusConflict, vocab.VerificationNotRun, vocab.Counts{Conflicts: 1})
	if res.Plan[0].Conflict != vocab.ConflictReplicaClash {
		t.Fatalf("conflict %s", res.Plan[0].Conflict)
	}
	if n := mutations(before, e.calls(t)); n != 0 || e.calls(t)["ReplicateSecretToRegions"] != 0 {
		t.Fatalf("%d mutations", n)
	}
}

// TestReplicas_ScopeInReplicaRegionPlansNothing: the same scope run in a
// replica's Region sees this scope's replicas there: they are never
// candidates, conflicts or orphans, desired or not (SPEC §12), and the
// setting absent changes nothing of that.
func TestReplicas_ScopeInReplicaRegionPlansNothing(t *testing.T) {
	e := newEnv(t)
	st := state(doc{"db", `{"v":1}`}, doc{"cache", `{"v":2}`})
	wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})

	there := newAdapter(e.srv.ClientIn(t, "eu-west-1", "AKIDEMULATOR0000DEFAULT"))
	for name, tc := range map[string]struct {
		st       model.State
		replicas []model.Replica
		counts   vocab.Counts
	}{
		"same documents":                {st, nil, vocab.Counts{Unchanged: 2}},
		"no documents":                  {state(), nil, vocab.Counts{}},
		"no documents, replicas listed": {state(), []model.Replica{{Region: "us-east-1"}}, vocab.Counts{}},
	} {
		t.Run(name, func(t *testing.T) {
			before := e.calls(t)
			res := e.runPort(t, e.replicaCfg(engine.ModeSync, 4, tc.replicas), tc.st, there)
			wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, tc.counts)
			if len(res.Diagnostics) != 0 {
				t.Fatalf("diagnostics %+v: want no conflict or orphan warning", res.Diagnostics)
			}
			if n := mutations(before, e.calls(t)); n != 0 {
				t.Fatalf("%d mutations in the replica Region", n)
			}
		})
	}
}

// TestReplicas_OwnRegionListedIsInvalid: replica-regions naming the Region
// the SDK resolved (aws-region not given) stops the run before any read.
func TestReplicas_OwnRegionListedIsInvalid(t *testing.T) {
	e := newEnv(t)
	before := e.calls(t)
	res := e.run(t, e.replicaCfg(engine.ModeSync, 4, []model.Replica{{Region: "us-east-1"}}), state(doc{"db", `{}`}))
	if res.Status != vocab.StatusInvalid || !hasClass(res, diag.ConfigReplicaRegion) {
		t.Fatalf("result %+v", res)
	}
	// The diagnostic names the setting: replica-regions when the caller
	// did not say where it came from, the caller's subject when it did.
	if ds := res.Diagnostics; len(ds) != 1 || ds[0].Subject.Setting != "replica-regions" {
		t.Errorf("diagnostics %+v, want one naming the setting replica-regions", ds)
	}
	cfg := e.replicaCfg(engine.ModeSync, 4, []model.Replica{{Region: "us-east-1"}})
	cfg.ReplicasSetting = diag.Subject{Setting: "scopes", Origin: diag.OriginFile}
	if ds := e.run(t, cfg, state(doc{"db", `{}`})).Diagnostics; len(ds) != 1 || ds[0].Subject != cfg.ReplicasSetting {
		t.Errorf("diagnostics %+v, want one naming the caller's subject %+v", ds, cfg.ReplicasSetting)
	}
	if after := e.calls(t); after["ListSecrets"] != before["ListSecrets"] || after["DescribeSecret"] != before["DescribeSecret"] {
		t.Fatal("the run read AWS")
	}
}

// missingPort answers DescribeSecret of one name in the scope's Region as
// absent (a lost sight of the primary, as a fault answering
// ResourceNotFoundException gives).
type missingPort struct {
	Port
	name string
}

func (m *missingPort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	if id == m.name {
		return plan.ObservedSecret{}, nil
	}
	return m.Port.Describe(ctx, id)
}

// TestRegression_OwnReplicaIsNoClash: when the observation misses a
// primary (chaos seed 1, scenario 17 of the first campaign with replicas:
// a scripted ResourceNotFoundException on its DescribeSecret), its own
// replicas in the listed Regions are not a replica-clash: the plan is a
// create, which the apply precondition and a create that meets an existing
// secret then judge; a secret of the name that is not a replica of this
// Region's still is a clash.
func TestRegression_OwnReplicaIsNoClash(t *testing.T) {
	e := newEnv(t)
	st := state(doc{"db", `{"v":1}`})
	wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	res := e.runPort(t, e.replicaCfg(engine.ModePlan, 4, twoReplicas), st, &missingPort{Port: e.port, name: nameOf("db")})
	wantResult(t, res, vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Create: 1})
}

// TestAmbiguousReplicaChanges: a ReplicateSecretToRegions or
// RemoveRegionsFromReplication whose answer is lost (SDK retries off) is
// accepted when a re-observation shows it done, and fails closed, never
// resent, when it did not land: a removal cannot be undone, so it is made
// at most once per run; the next run finishes the job.
func TestAmbiguousReplicaChanges(t *testing.T) {
	cases := []struct {
		name, op, fault string
		status          vocab.Status
		calls           int64
	}{
		{"replicate, after apply: proven by re-observation", "ReplicateSecretToRegions", "ambiguous-after-apply", vocab.StatusConverged, 1},
		{"replicate, before apply: failed closed", "ReplicateSecretToRegions", "ambiguous-before-apply", vocab.StatusApplyFailed, 1},
		{"remove, after apply: proven by re-observation", "RemoveRegionsFromReplication", "ambiguous-after-apply", vocab.StatusConverged, 1},
		{"remove, before apply: failed closed, not resent", "RemoveRegionsFromReplication", "ambiguous-before-apply", vocab.StatusApplyFailed, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { ambiguousReplicaChange(t, tc.op, tc.fault, tc.status, tc.calls) })
	}
}

// TestRegression_AmbiguousReplicateThenRemove: an update that adds one
// replica Region and drops another failed closed when the answer of its
// ReplicateSecretToRegions was lost although the call had landed: the
// re-observation was judged against the whole change, whose removal had
// not been made yet. Each call is now proven on its own part.
func TestRegression_AmbiguousReplicateThenRemove(t *testing.T) {
	ambiguousReplicaChange(t, "ReplicateSecretToRegions", "ambiguous-after-apply", vocab.StatusConverged, 1)
}

// ambiguousReplicaChange syncs one secret with twoReplicas, then, with the
// first call of op faulted, to a set that adds ap-south-1 and drops
// us-west-2 (op ReplicateSecretToRegions) or only drops us-west-2; it
// checks the status, the calls of op, and that the next run converges.
func ambiguousReplicaChange(t *testing.T, op, fault string, status vocab.Status, calls int64) {
	t.Helper()
	e := newEnv(t, noSDKRetry)
	st := state(doc{"db", `{"v":1}`})
	next := []model.Replica{{Region: "ap-south-1"}, {Region: "eu-west-1"}} // adds ap-south-1, drops us-west-2
	if op == "RemoveRegionsFromReplication" {
		next = []model.Replica{{Region: "eu-west-1"}}
	}
	wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	e.srv.SetFaults(t, emulator.Faults{Script: script(op, fault, 1)})
	before := e.calls(t)
	if res := e.run(t, e.replicaCfg(engine.ModeSync, 4, next), st); res.Status != status {
		t.Fatalf("status %s, want %s", res.Status, status)
	}
	if got := e.calls(t)[op] - before[op]; got != calls {
		t.Fatalf("%s calls = %d, want %d (never resent after an ambiguous outcome)", op, got, calls)
	}
	e.srv.SetFaults(t, emulator.Faults{})
	if res := e.run(t, e.replicaCfg(engine.ModeSync, 4, next), st); res.Status != vocab.StatusConverged {
		t.Fatalf("the next run: %+v", res)
	}
	primary, _ := e.secretIn(t, "us-east-1", nameOf("db"))
	if got := slices.Sorted(slices.Values(primary.ReplicaRegions)); !slices.Equal(got, model.ReplicaRegionsOf(next)) {
		t.Fatalf("replicas %v, want %v", got, model.ReplicaRegionsOf(next))
	}
}

// describeInCounter counts the port's reads in other Regions.
type describeInCounter struct {
	Port
	n atomic.Int64
}

func (d *describeInCounter) DescribeIn(ctx context.Context, region, name string) (plan.ObservedSecret, error) {
	d.n.Add(1)
	return d.Port.DescribeIn(ctx, region, name)
}

// TestReplicas_ConvergedNoOpCallsNothingNew: with every configured replica
// InSync, a sync reads nothing in another Region and makes exactly the
// calls of a no-op without replica-regions (one ListSecrets, one describe
// and value read per secret, no verification pass).
func TestReplicas_ConvergedNoOpCallsNothingNew(t *testing.T) {
	e := newEnv(t)
	st := state(doc{"a", `{"v":1}`}, doc{"b", `{"v":2}`})
	wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
	counter := &describeInCounter{Port: e.port}
	before := e.calls(t)
	res := e.runPort(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), st, counter)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
	withReplicas := e.calls(t)
	if counter.n.Load() != 0 {
		t.Fatalf("%d reads in other Regions on a converged no-op", counter.n.Load())
	}
	// The same scope without replicas managed would see conflicts; compare
	// with a converged scope of the same size that has none.
	f := newEnv(t)
	wantResult(t, f.sync(t, 4, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
	fb := f.calls(t)
	wantResult(t, f.sync(t, 4, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
	fa := f.calls(t)
	for _, op := range []string{"ListSecrets", "DescribeSecret", "BatchGetSecretValue", "GetSecretValue"} {
		if got, want := withReplicas[op]-before[op], fa[op]-fb[op]; got != want {
			t.Errorf("%s: %d calls with replicas, %d without", op, got, want)
		}
	}
}

// TestRegression_FailedReplicaIsDrift: a configured replica that is Failed
// makes plan drift (plan --detailed-exit-code exits 2) although nothing is
// planned: every sync ends verification-failed until an operator acts, so
// the scheduled drift check must not close its issue. The warning the
// plan file (and so the drift issue) carries names the Region, never AWS's
// status message. A replica merely InProgress is not drift. It was
// converged (exit 0).
func TestRegression_FailedReplicaIsDrift(t *testing.T) {
	const canary = "CANARY-status-message-5519"
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "us-west-2", Message: canary}}})
	st := state(doc{"db", `{"v":1}`}, doc{"api", `{"v":2}`})
	e.run(t, e.replicaCfg(engine.ModeSync, 4, twoReplicas), st)
	e.srv.SetFaults(t, emulator.Faults{})
	res := e.run(t, e.replicaCfg(engine.ModePlan, 4, twoReplicas), st)
	wantResult(t, res, vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Unchanged: 2})
	if vocab.ExitCode(res.Status, true) != vocab.ExitDrift {
		t.Fatalf("plan --detailed-exit-code exits %d", vocab.ExitCode(res.Status, true))
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Summary != "2 configured replicas are not InSync (2 Failed, 0 InProgress); Failed in us-west-2" {
		t.Fatalf("plan diagnostics %+v", res.Diagnostics)
	}
	if strings.Contains(e.logs.String(), canary) || strings.Contains(fmt.Sprint(res.Diagnostics), canary) {
		t.Fatal("AWS's status message reached the log or the result")
	}

	// InProgress only: not drift.
	e2 := newEnv(t)
	e2.srv.SetFaults(t, emulator.Faults{ReplicationLagMS: 3_600_000})
	cfg := e2.replicaCfg(engine.ModeSync, 4, twoReplicas)
	cfg.VerificationTimeout, cfg.Clock = time.Second, &stepClock{now: time.Unix(1_700_000_000, 0)}
	e2.run(t, cfg, st)
	res = e2.run(t, e2.replicaCfg(engine.ModePlan, 4, twoReplicas), st)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 2})
}
