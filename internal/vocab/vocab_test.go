package vocab

import (
	"encoding/json"
	"testing"
)

// TestWireTokensGolden fails if any public token changes: the recovery guide,
// the GitHub Action and users' scripts key on these exact strings.
func TestWireTokensGolden(t *testing.T) {
	statuses := map[Status]int{
		StatusConverged: 0, StatusInvalid: 3, StatusConflict: 4,
		StatusApplyFailed: 5, StatusObservationFailed: 5,
		StatusVerificationFailed: 6, StatusVerificationInconclusive: 6,
		StatusInterrupted: 130,
	}
	want := map[Status]string{
		StatusConverged: "converged", StatusInvalid: "invalid", StatusConflict: "conflict",
		StatusApplyFailed: "apply-failed", StatusObservationFailed: "observation-failed",
		StatusVerificationFailed: "verification-failed", StatusVerificationInconclusive: "verification-inconclusive",
		StatusInterrupted: "interrupted",
	}
	for s, code := range statuses {
		if string(s) != want[s] {
			t.Errorf("status token %q changed, want %q", s, want[s])
		}
		if got := ExitCode(s, true); got != code {
			t.Errorf("ExitCode(%s) = %d, want %d", s, got, code)
		}
		if got := ExitCode(s, false); got != code {
			t.Errorf("ExitCode(%s, no detailed) = %d, want %d", s, got, code)
		}
	}
	if StatusDrift != "drift" || ExitCode(StatusDrift, true) != 2 || ExitCode(StatusDrift, false) != 0 {
		t.Errorf("drift token or exit mapping changed")
	}
	if ExitCode(Status("bogus"), false) != ExitInvalid {
		t.Errorf("unknown status must fail closed as invalid")
	}
	for v, s := range map[Verification]string{
		VerificationConverged: "converged", VerificationFailed: "failed",
		VerificationInconclusive: "inconclusive", VerificationNotRun: "not-run",
	} {
		if string(v) != s {
			t.Errorf("verification token %q changed, want %q", v, s)
		}
	}
	classes := []string{"ownership", "source", "source-tag", "service-owned", "rotation", "replication", "replica-clash", "staging", "payload", "adopt-deleted", "adopt-mismatch", "aws-owned-missing", "tag-limit", "parameter-shape"}
	if len(ConflictClasses) != len(classes) {
		t.Fatalf("conflict classes: %d, want %d", len(ConflictClasses), len(classes))
	}
	for i, c := range ConflictClasses {
		if string(c) != classes[i] {
			t.Errorf("conflict class %d = %q, want %q", i, c, classes[i])
		}
	}
	if ReportSchema != "sops-aws-sync/report/v1" {
		t.Errorf("report schema changed: %q", ReportSchema)
	}
	b, _ := json.Marshal(Counts{Create: 1, Update: 2, Restore: 3, ScheduleDelete: 4, Unchanged: 5, Conflicts: 6})
	if string(b) != `{"create":1,"update":2,"restore":3,"schedule_delete":4,"unchanged":5,"conflicts":6}` {
		t.Errorf("counts JSON changed: %s", b)
	}
	if (Counts{Create: 1, Update: 2, Restore: 3, ScheduleDelete: 4, Unchanged: 5, Conflicts: 6}).Operations() != 10 {
		t.Errorf("Operations() must add create, update, restore, schedule-delete")
	}
	withAdopt := Counts{Create: 1, Update: 2, Adopt: 7, Restore: 3, ScheduleDelete: 4, Unchanged: 5, Conflicts: 6}
	if withAdopt.Operations() != 17 {
		t.Errorf("Operations() must add adopt")
	}
	if b, _ := json.Marshal(withAdopt.Report()); string(b) != `{"create":1,"update":9,"restore":3,"schedule_delete":4,"unchanged":5,"conflicts":6}` {
		t.Errorf("report counts must fold adopt into update with the v1 keys: %s", b)
	}
}

// TestMostSevere pins the exit precedence of a run of several scopes
// (SPEC §10: 130 > 5 > 6 > 4 > 3 > 2 > 0): for every pair of statuses the
// most severe has the higher-ranked exit code, in either order, and ties
// within one exit code are broken the same way whatever the order.
func TestMostSevere(t *testing.T) {
	precedence := []int{ExitOK, ExitDrift, ExitInvalid, ExitConflict, ExitVerify, ExitApply, ExitInterrupted}
	rank := func(s Status) int {
		for i, c := range precedence {
			if ExitCode(s, true) == c {
				return i
			}
		}
		t.Fatalf("exit code of %s not in the precedence", s)
		return -1
	}
	for _, a := range Statuses {
		for _, b := range Statuses {
			got, back := MostSevere(a, b), MostSevere(b, a)
			if got != back {
				t.Errorf("MostSevere(%s, %s) = %s but MostSevere(%s, %s) = %s", a, b, got, b, a, back)
			}
			if want := max(rank(a), rank(b)); rank(got) != want {
				t.Errorf("MostSevere(%s, %s) = %s (exit %d), want exit %d", a, b, got, ExitCode(got, true), precedence[want])
			}
		}
	}
	for _, c := range []struct {
		in   []Status
		want Status
	}{
		{nil, StatusConverged},
		{[]Status{StatusConverged, StatusDrift, StatusConverged}, StatusDrift},
		{[]Status{StatusDrift, StatusInvalid, StatusConflict}, StatusConflict},
		{[]Status{StatusConflict, StatusVerificationInconclusive}, StatusVerificationInconclusive},
		{[]Status{StatusVerificationFailed, StatusObservationFailed}, StatusObservationFailed},
		{[]Status{StatusObservationFailed, StatusApplyFailed}, StatusApplyFailed},
		{[]Status{StatusApplyFailed, StatusInterrupted, StatusConverged}, StatusInterrupted},
		{[]Status{StatusConverged, Status("bogus")}, StatusInvalid},
	} {
		if got := MostSevere(c.in...); got != c.want {
			t.Errorf("MostSevere(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestMostSevereVerification: failed > inconclusive > not-run > converged,
// so several scopes are verified converged only when each one is.
func TestMostSevereVerification(t *testing.T) {
	for _, c := range []struct {
		in   []Verification
		want Verification
	}{
		{nil, VerificationNotRun},
		{[]Verification{VerificationConverged, VerificationConverged}, VerificationConverged},
		{[]Verification{VerificationConverged, VerificationNotRun}, VerificationNotRun},
		{[]Verification{VerificationInconclusive, VerificationNotRun, VerificationConverged}, VerificationInconclusive},
		{[]Verification{VerificationInconclusive, VerificationFailed}, VerificationFailed},
		{[]Verification{VerificationConverged, Verification("bogus")}, VerificationNotRun},
	} {
		if got := MostSevereVerification(c.in...); got != c.want {
			t.Errorf("MostSevereVerification(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestCountsPlus: every field of Counts is summed (a run's counts are the
// sum of its scopes').
func TestCountsPlus(t *testing.T) {
	a := Counts{Create: 1, Update: 2, Restore: 3, ScheduleDelete: 4, Unchanged: 5, Conflicts: 6}
	b := Counts{Create: 10, Update: 20, Restore: 30, ScheduleDelete: 40, Unchanged: 50, Conflicts: 60}
	want := Counts{Create: 11, Update: 22, Restore: 33, ScheduleDelete: 44, Unchanged: 55, Conflicts: 66}
	if got := a.Plus(b); got != want {
		t.Fatalf("Plus = %+v, want %+v", got, want)
	}
	if a.Plus(Counts{}) != a {
		t.Fatalf("Plus(zero) changed the counts")
	}
}
