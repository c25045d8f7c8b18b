package engine

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Pure tests of the run ledger: no AWS, no clock.

func ledgerState() model.State {
	return model.State{Secrets: []model.Secret{
		{Name: "app/a", Ordinal: 1},
		{Name: "app/c", Ordinal: 3},
	}}
}

func op(action vocab.Action, name string, planned ...string) plan.Operation {
	return plan.Operation{Action: action, Name: name, Fingerprint: plan.Fingerprint{Name: name, CurrentVersions: planned}}
}

func TestLedger_LabelsDesiredByOrdinalOthersAfterInNameOrder(t *testing.T) {
	l := newLedger(ledgerState(), false, ModeSync)
	l.labelNew([]string{"app/z", "app/a", "app/b", "app/z"})
	for name, want := range map[string]string{
		"app/a": "resource-0001", "app/c": "resource-0003", // document ordinals
		"app/b": "resource-0004", "app/z": "resource-0005", // after the largest, name order
	} {
		if got := l.label(name); got != want {
			t.Errorf("label(%s) = %s, want %s", name, got, want)
		}
	}
	if got := l.label("app/y"); got != "resource-0006" {
		t.Errorf("a name first seen by label gets the next ordinal, got %s", got)
	}
	// Learning an ARN does not spend an ordinal.
	l.learnARN("app/x", "arn:x")
	l.labelNew([]string{"app/x"})
	if got := l.label("app/x"); got != "resource-0007" {
		t.Errorf("label after learnARN = %s, want resource-0007", got)
	}
	// A name whose ARN was learnt first is still labelled with the
	// observation's names, in name order.
	l.learnARN("app/w", "arn:w")
	l.labelNew([]string{"app/x2", "app/w"})
	if w, x2 := l.label("app/w"), l.label("app/x2"); w != "resource-0008" || x2 != "resource-0009" {
		t.Errorf("labels app/w %s, app/x2 %s; want resource-0008 and resource-0009 (name order, the learnt ARN no exception)", w, x2)
	}
	if shown := newLedger(ledgerState(), true, ModeSync); shown.label("app/a") != "app/a" {
		t.Errorf("with names shown the label is the name")
	}
}

func TestLedger_ARNs(t *testing.T) {
	l := newLedger(ledgerState(), false, ModeSync)
	if l.arn("app/a") != "" {
		t.Fatal("no ARN before one is learned")
	}
	l.learnARN("app/a", "arn:1")
	l.learnARN("app/a", "") // an absent observation keeps the known ARN
	if got := l.arn("app/a"); got != "arn:1" {
		t.Fatalf("arn = %q", got)
	}
	l.accept(op(vocab.ActionCreate, "app/n"), "arn:n", "tok")
	if got := l.arn("app/n"); got != "arn:n" {
		t.Fatalf("accept records the ARN, got %q", got)
	}
}

func TestLedger_CountsBeforeAndAfterApply(t *testing.T) {
	final := plan.Plan{
		Ops:       []plan.Operation{op(vocab.ActionCreate, "app/x"), op(vocab.ActionScheduleDelete, "app/z")},
		Unchanged: []plan.Unchanged{{Name: "app/a"}, {Name: "app/c"}},
		Conflicts: nil,
	}
	if got, want := newLedger(ledgerState(), false, ModePlan).counts(final, vocab.StatusDrift), final.Counts(); got != want {
		t.Fatalf("plan counts are the plan's: %+v, want %+v", got, want)
	}
	l := newLedger(ledgerState(), false, ModeSync)
	final.DeletionLimitGate = true
	if got, want := l.counts(final, vocab.StatusInvalid), (vocab.Counts{Unchanged: 2}); got != want {
		t.Fatalf("a sync stopped before applying did nothing: %+v, want %+v", got, want)
	}
	final.DeletionLimitGate = false
	l.accept(op(vocab.ActionRestore, "app/c"), "", "")
	l.accept(op(vocab.ActionUpdate, "app/c"), "", "v2")
	l.accept(op(vocab.ActionCreate, "app/n"), "", "v1")
	got := l.counts(final, vocab.StatusConverged)
	want := vocab.Counts{Create: 1, Update: 1, Restore: 1, Unchanged: 1} // app/c was touched
	if got != want {
		t.Fatalf("after apply: %+v, want %+v", got, want)
	}
	l.noteConflict()
	if got := l.counts(plan.Plan{}, vocab.StatusConflict).Conflicts; got != 1 {
		t.Fatalf("a conflict status counts the late conflicts, got %d", got)
	}
	if got := l.counts(plan.Plan{}, vocab.StatusInterrupted).Conflicts; got != 0 {
		t.Fatalf("other statuses count the final plan's conflicts only, got %d", got)
	}
	withConflict := plan.Plan{Conflicts: []plan.Conflict{{Name: "app/a"}}}
	if got := l.counts(withConflict, vocab.StatusConflict).Conflicts; got != 2 {
		t.Fatalf("a rebuilt plan's conflicts add to the late ones, got %d", got)
	}
}

func TestLedger_TouchedNamesSorted(t *testing.T) {
	l := newLedger(ledgerState(), false, ModeSync)
	l.learnARN("app/q", "arn:q") // known, not touched
	for _, n := range []string{"app/z", "app/a", "app/z"} {
		l.accept(op(vocab.ActionUpdate, n), "", "")
	}
	if got := l.touchedNames(); !slices.Equal(got, []string{"app/a", "app/z"}) {
		t.Fatalf("touchedNames = %v", got)
	}
}

func TestLedger_ExplainedByLag(t *testing.T) {
	l := newLedger(ledgerState(), false, ModeSync)
	l.accept(op(vocab.ActionUpdate, "app/a", "v0"), "", "v1")
	still := func(name string, shows ...string) plan.Plan {
		return plan.Plan{Ops: []plan.Operation{op(vocab.ActionUpdate, name, shows...)}}
	}
	for _, c := range []struct {
		name string
		p    plan.Plan
		want bool
	}{
		{"nothing left", plan.Plan{}, true},
		{"still the planned-from version", still("app/a", "v0"), true},
		{"our written version", still("app/a", "v1"), true},
		{"no current version", still("app/a"), true},
		{"someone else's version", still("app/a", "v9"), false},
		{"ours beside someone else's", still("app/a", "v1", "v9"), false},
		{"an untouched name", still("app/c", "v0"), false},
		{"a name never seen", still("app/new"), false},
	} {
		if got := l.explainedByLag(c.p); got != c.want {
			t.Errorf("%s: explainedByLag = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestLedger_ResultVerificationFollowsStatusAndMode(t *testing.T) {
	sync := newLedger(ledgerState(), false, ModeSync)
	for s, want := range map[vocab.Status]vocab.Verification{
		vocab.StatusConverged:                vocab.VerificationConverged,
		vocab.StatusVerificationFailed:       vocab.VerificationFailed,
		vocab.StatusVerificationInconclusive: vocab.VerificationInconclusive,
		vocab.StatusConflict:                 vocab.VerificationNotRun,
		vocab.StatusApplyFailed:              vocab.VerificationNotRun,
		vocab.StatusObservationFailed:        vocab.VerificationNotRun,
		vocab.StatusInvalid:                  vocab.VerificationNotRun,
		vocab.StatusInterrupted:              vocab.VerificationNotRun,
	} {
		if got := sync.result(s, plan.Plan{}); got.Status != s || got.Verification != want {
			t.Errorf("sync %s: %+v, want verification %s", s, got, want)
		}
	}
	pl := newLedger(ledgerState(), false, ModePlan)
	for _, s := range []vocab.Status{vocab.StatusConverged, vocab.StatusDrift, vocab.StatusConflict} {
		if got := pl.result(s, plan.Plan{}); got.Verification != vocab.VerificationNotRun {
			t.Errorf("plan %s: verification %s, want not-run", s, got.Verification)
		}
	}
	p := plan.Plan{Ops: []plan.Operation{op(vocab.ActionCreate, "app/x")}}
	if got := pl.result(vocab.StatusDrift, p).Counts; got != (vocab.Counts{Create: 1}) {
		t.Errorf("plan counts are the plan's: %+v", got)
	}
}

// TestLedger_PlanDataIsTheShownPlanWithOrdinals: Result.Plan is nil before
// any plan; then every operation (with its key summary and metadata
// kinds), follow-up, conflict and unchanged name of the shown plan, each
// with the ordinal of its log label and its wire reason; a rebuilt plan
// replaces the earlier one and its follow-ups; verification's plans never
// reach it (they are not recorded).
func TestLedger_PlanDataIsTheShownPlanWithOrdinals(t *testing.T) {
	l := newLedger(ledgerState(), false, ModeSync)
	if got := l.result(vocab.StatusObservationFailed, plan.Plan{}).Plan; got != nil {
		t.Fatalf("no plan built, got %v", got)
	}
	l.labelNew([]string{"app/old"}) // ordinal 4, as observation gives it
	keys := &keydiff.Summary{Added: []keydiff.Path{{Pointer: "/k", InDesired: true}}}
	upd := op(vocab.ActionUpdate, "app/a")
	upd.Reason, upd.Keys, upd.Metadata = vocab.ReasonMetadata, keys, plan.MetadataChange{Description: true}
	upd.Fingerprint.ARN, upd.Fingerprint.CurrentVersions = "arn:a", []string{"v1"}
	del := op(vocab.ActionScheduleDelete, "app/old")
	del.Reason = vocab.ReasonNotDesired
	l.planned(plan.Plan{Ops: []plan.Operation{upd, del}, Unchanged: []plan.Unchanged{{Name: "app/c", Reason: vocab.ReasonValueEqual}}})
	fu := op(vocab.ActionUpdate, "app/c")
	fu.Reason, fu.Keys = vocab.ReasonRestoreThenUpdate, keys
	l.followUp(fu)
	got := l.result(vocab.StatusConverged, plan.Plan{}).Plan
	// Every operation carries what planning observed (the plan file's
	// fingerprint, SPEC §14); conflicts and unchanged names do not.
	if o := got[0].Observed; o == nil || o.ARN != "arn:a" || !reflect.DeepEqual(o.Versions, []string{"v1"}) || len(o.Metadata) == 0 {
		t.Fatalf("the update's observation: %+v", o)
	}
	for i := range 3 {
		if got[i].Observed == nil {
			t.Fatalf("operation %d has no observation", i)
		}
	}
	want := []planview.Operation{
		{Ordinal: 1, Name: "app/a", Action: vocab.ActionUpdate, Reason: vocab.ReasonMetadata, Keys: keys, Metadata: []vocab.MetadataKind{vocab.MetadataDescription}, Observed: got[0].Observed},
		{Ordinal: 4, Name: "app/old", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired, Observed: got[1].Observed},
		{Ordinal: 3, Name: "app/c", Action: vocab.ActionUpdate, Reason: vocab.ReasonRestoreThenUpdate, Keys: keys, Observed: got[2].Observed},
		{Ordinal: 3, Name: "app/c", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("plan data\n got %+v\nwant %+v", got, want)
	}
	// A rebuild replaces the plan and drops the earlier follow-ups.
	l.planned(plan.Plan{Conflicts: []plan.Conflict{{Name: "app/new", Class: vocab.ConflictOwnership}}})
	got = l.result(vocab.StatusConflict, plan.Plan{}).Plan
	want = []planview.Operation{{Ordinal: 5, Name: "app/new", Action: vocab.ActionConflict, Reason: vocab.Reason(vocab.ConflictOwnership), Conflict: vocab.ConflictOwnership}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rebuilt plan data\n got %+v\nwant %+v", got, want)
	}
}

// BenchmarkLedgerPlanData10000 is the engine's own share of issue 13 in a
// no-op plan of N = 10,000: turning the shown plan into Result.Plan
// (compare with BenchmarkNoopPlanView's plan).
func BenchmarkLedgerPlanData10000(b *testing.B) {
	var st model.State
	var p plan.Plan
	for i := range 10000 {
		name := "app/s" + strconv.Itoa(i)
		st.Secrets = append(st.Secrets, model.Secret{Name: name, Ordinal: i + 1})
		p.Unchanged = append(p.Unchanged, plan.Unchanged{Name: name, Reason: vocab.ReasonValueEqual})
	}
	l := newLedger(st, false, ModePlan)
	l.planned(p)
	for b.Loop() {
		if len(l.planData()) != 10000 {
			b.Fatal("short")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/plan")
}

// TestLedgerChangeTakesTheARNLearnedAfterItsWrite: Parameter Store's
// PutParameter returns no ARN, so a create is accepted with none; the
// changes list carries the ARN verification learned for the name since
// (the changes file refuses a change without one: SPEC §16), and an ARN
// the write returned is kept.
func TestLedgerChangeTakesTheARNLearnedAfterItsWrite(t *testing.T) {
	l := newLedger(ledgerState(), false, ModeSync)
	const arn = "arn:aws:ssm:us-east-1:123456789012:parameter/app/a"
	l.accept(plan.Operation{Name: "app/a", Action: vocab.ActionCreate}, "", "1")
	l.accept(plan.Operation{Name: "app/b", Action: vocab.ActionUpdate}, "arn:aws:ssm:us-east-1:123456789012:parameter/app/b", "2")
	if got := l.changeList()[0].ARN; got != "" {
		t.Fatalf("before it is learned, the ARN is %q", got)
	}
	l.learnARN("app/a", arn)
	got := l.changeList()
	if got[0].ARN != arn || got[1].ARN != "arn:aws:ssm:us-east-1:123456789012:parameter/app/b" {
		t.Errorf("changes %+v: want the learned ARN on the create and the returned one on the update", got)
	}
}

// TestLedgerUnnamedListsEachChangeWithoutAnARNOnce: the names a run must
// describe after its apply so that the changes file names each change by
// its ARN (runner.learnChangeARNs): a change accepted without an ARN
// whose name's ARN was not learned since, once however many changes it
// has, in change order; none once it is learned, none for a change whose
// write returned its ARN.
func TestLedgerUnnamedListsEachChangeWithoutAnARNOnce(t *testing.T) {
	l := newLedger(ledgerState(), false, ModeSync)
	if got := l.unnamed(); got != nil {
		t.Fatalf("no change, yet unnamed %v", got)
	}
	l.accept(plan.Operation{Name: "app/b", Action: vocab.ActionCreate}, "", "1")
	l.accept(plan.Operation{Name: "app/a", Action: vocab.ActionCreate}, "", "1")
	l.accept(plan.Operation{Name: "app/a", Action: vocab.ActionUpdate}, "", "2")
	l.accept(plan.Operation{Name: "app/c", Action: vocab.ActionUpdate}, "arn:aws:ssm:us-east-1:123456789012:parameter/app/c", "2")
	if got, want := l.unnamed(), []string{"app/b", "app/a"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("unnamed %v, want %v", got, want)
	}
	l.learnARN("app/b", "arn:aws:ssm:us-east-1:123456789012:parameter/app/b")
	if got, want := l.unnamed(), []string{"app/a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after app/b's ARN was learned, unnamed %v, want %v", got, want)
	}
}

// TestExistsCodeIsTheServicesOwn: verify:second-writer's record names the
// code AWS sent for a create whose name is taken (Parameter Store's
// ParameterAlreadyExists, Secrets Manager's ResourceExistsException), and
// Secrets Manager's when the error carries none.
func TestExistsCodeIsTheServicesOwn(t *testing.T) {
	for err, want := range map[error]string{
		&Error{Code: "ParameterAlreadyExists", Exists: true}:  "ParameterAlreadyExists",
		&Error{Code: "ResourceExistsException", Exists: true}: "ResourceExistsException",
		&Error{Exists: true}: codeResourceExists,
		context.Canceled:     codeResourceExists,
	} {
		if got := existsCode(err); got != want {
			t.Errorf("existsCode(%v) = %q, want %q", err, got, want)
		}
	}
}
