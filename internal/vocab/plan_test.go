package vocab

import (
	"slices"
	"testing"
)

// TestPlanTokensGolden fails if a plan-file token changes: the Action, the
// show command and users' scripts read these exact strings (SPEC §7.4).
func TestPlanTokensGolden(t *testing.T) {
	if PlanSchema != "sops-aws-sync/plan/v1" {
		t.Errorf("plan schema changed: %q", PlanSchema)
	}
	actions := []string{"conflict", "restore", "create", "update", "schedule-delete", "unchanged"}
	if len(PlanActions) != len(actions) {
		t.Fatalf("plan actions: %d, want %d", len(PlanActions), len(actions))
	}
	for i, a := range PlanActions {
		if string(a) != actions[i] {
			t.Errorf("plan action %d = %q, want %q", i, a, actions[i])
		}
	}
	want := map[PlanAction][]string{
		PlanRestore:        {"scheduled-for-deletion"},
		PlanCreate:         {"absent"},
		PlanUpdate:         {"value-differs", "stored-value-binary", "stored-value-string", "no-current-version", "restore-then-update", "metadata"},
		PlanScheduleDelete: {"not-desired"},
		PlanUnchanged:      {"value-equal", "scheduled-for-deletion"},
		PlanConflict:       {"ownership", "source", "source-tag", "service-owned", "rotation", "replication", "staging", "payload"},
	}
	if len(PlanReasons) != len(want) {
		t.Fatalf("reason table has %d actions, want %d", len(PlanReasons), len(want))
	}
	for a, rs := range want {
		got := PlanReasons[a]
		if len(got) != len(rs) {
			t.Errorf("%s reasons = %v, want %v", a, got, rs)
			continue
		}
		for i := range rs {
			if string(got[i]) != rs[i] {
				t.Errorf("%s reason %d = %q, want %q", a, i, got[i], rs[i])
			}
		}
	}
	keys := []string{"stored-value-binary", "stored-value-not-json", "stored-value-not-object", "whole-value"}
	if len(KeysUnavailableReasons) != len(keys) {
		t.Fatalf("keys_unavailable: %v, want %v", KeysUnavailableReasons, keys)
	}
	for i, k := range KeysUnavailableReasons {
		if string(k) != keys[i] {
			t.Errorf("keys_unavailable %d = %q, want %q", i, k, keys[i])
		}
	}
	meta := []string{"kms-key", "description", "tags"}
	if len(MetadataKinds) != len(meta) {
		t.Fatalf("metadata kinds: %v, want %v", MetadataKinds, meta)
	}
	for i, k := range MetadataKinds {
		if string(k) != meta[i] {
			t.Errorf("metadata kind %d = %q, want %q", i, k, meta[i])
		}
	}
	if !slices.Contains(PlanActions, PlanAction(OpScheduleDelete)) {
		t.Errorf("plan actions must spell the operation kinds as vocab does")
	}
}
