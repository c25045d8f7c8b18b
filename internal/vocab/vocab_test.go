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
	classes := []string{"ownership", "source", "source-tag", "service-owned", "rotation", "replication", "staging", "payload"}
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
	b, _ := json.Marshal(Counts{1, 2, 3, 4, 5, 6})
	if string(b) != `{"create":1,"update":2,"restore":3,"schedule_delete":4,"unchanged":5,"conflicts":6}` {
		t.Errorf("counts JSON changed: %s", b)
	}
	if (Counts{1, 2, 3, 4, 5, 6}).Operations() != 10 {
		t.Errorf("Operations() must add create, update, restore, schedule-delete")
	}
}
