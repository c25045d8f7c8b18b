package chaos

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// idealPSP is the evidence a correct CLI leaves for s: every run exit 0
// with a converged report, no call, and after the final sync exactly the
// final documents, ours, with the final runs' tags, key and description.
func idealPSP(s PSPScenario) Evidence {
	ev := Evidence{Scenario: s.scenario()}
	rep, _ := json.Marshal(map[string]string{"status": "converged"})
	for _, r := range s.Runs {
		ev.Runs = append(ev.Runs, RunResult{Run: r.Run, Report: rep})
	}
	final := s.Runs[len(s.Runs)-1]
	for name, d := range s.Scope.Desired(final.Revision) {
		tags := map[string]string{model.TagManagedBy: model.ManagedByValue, model.TagScope: s.Scope.Scope.Digest(), model.TagSource: "x"}
		key, desc := "alias/aws/ssm", ""
		if m := final.Metadata; m != nil {
			for k, v := range m.Tags {
				tags[k] = v
			}
			if m.KMSKeyID != "" {
				key = m.KMSKeyID
			}
			desc = m.Description
		}
		ev.PSFinal = append(ev.PSFinal, PSObserved{Name: name, Type: "SecureString", Value: string(d.Canon), Version: 1, Tags: tags})
		ev.Post.Parameters = append(ev.Post.Parameters, emulator.ParameterDump{Account: emulator.DefaultAccountID, Region: ChaosRegion,
			Name: name, Type: "SecureString", Value: string(d.Canon), Tags: tags, KeyID: key, Description: desc, Tier: "Standard"})
	}
	return ev
}

func pspKinds(vs []Violation) []string {
	var k []string
	for _, v := range vs {
		k = append(k, v.Kind)
	}
	return k
}

// CheckPSPrimary has teeth: an ideal run passes; a crash, a report that
// disagrees with the exit code, a conflict, a final plan with work left,
// a tier named against the configuration, a key or description other than
// the configured one, and a plaintext in an output are each found.
func TestCheckPSPrimary(t *testing.T) {
	for i := range 20 {
		s, err := GeneratePSPrimary(3, i)
		if err != nil {
			t.Fatal(err)
		}
		if vs := CheckPSPrimary(s, idealPSP(s)); len(vs) != 0 {
			t.Fatalf("scenario %d: ideal run judged %v", i, vs)
		}
		last := len(s.Runs) - 1
		for name, mutate := range map[string]func(ev *Evidence){
			"psp-crash": func(ev *Evidence) {
				ev.Runs[0].Exit, ev.Runs[0].Stderr = 2, []byte("panic: boom\n\ngoroutine 1 [running]:\n")
			},
			"psp-exit-status":    func(ev *Evidence) { ev.Runs[0].Exit = 5 },
			"psp-report-missing": func(ev *Evidence) { ev.Runs[0].Report = nil },
			"psp-unexpected-status": func(ev *Evidence) {
				ev.Runs[0].Exit, ev.Runs[0].Report = 4, []byte(`{"status":"conflict"}`)
			},
			"psp-not-idempotent": func(ev *Evidence) { ev.Runs[last].Exit, ev.Runs[last].Report = 2, []byte(`{"status":"drift"}`) },
			"psp-no-convergence": func(ev *Evidence) {
				ev.Runs[last-1].Exit, ev.Runs[last-1].Report = 5, []byte(`{"status":"apply-failed"}`)
			},
			"psp-tier": func(ev *Evidence) {
				tier := "Standard"
				if s.Runs[0].Tier == model.TierStandard {
					tier = "Advanced"
				}
				ev.Calls = append(ev.Calls, Call{Run: 1, Service: "ssm", Op: "PutParameter", Target: "/" + PSPrimaryPrefix + "/db", Type: "SecureString",
					Overwrite: true, Tier: tier})
			},
			"psp-leak": func(ev *Evidence) { ev.Runs[0].Stdout = []byte(`{"msg":"` + CanaryMarker + `0123"}`) },
		} {
			ev := idealPSP(s)
			mutate(&ev)
			if got := pspKinds(CheckPSPrimary(s, ev)); !slices.Contains(got, name) {
				t.Fatalf("scenario %d: %s not found (got %v)", i, name, got)
			}
		}
		if m := s.Runs[last].Metadata; m != nil && len(s.Scope.Desired(s.Runs[last].Revision)) > 0 {
			ev := idealPSP(s)
			ev.Post.Parameters[0].KeyID, ev.Post.Parameters[0].Description = "alias/other", "other"
			got := pspKinds(CheckPSPrimary(s, ev))
			if m.KMSKeyID != "" && !slices.Contains(got, "psp-kms") {
				t.Fatalf("scenario %d: another key after the final sync not found (got %v)", i, got)
			}
			if m.Description != "" && !slices.Contains(got, "psp-description") {
				t.Fatalf("scenario %d: another description after the final sync not found (got %v)", i, got)
			}
		}
	}
}

// The generator draws both tiers, values past the standard tier (then
// every run advanced), every KMS key setting and description, faults,
// another writer and max-deletions; the last two runs are the final sync
// and plan of the last revision.
func TestGeneratePSPrimaryDrawsEverySetting(t *testing.T) {
	tiers, kms, desc := map[string]int{}, map[string]int{}, map[string]int{}
	big, faults, drifts, limits := 0, 0, 0, 0
	for i := range 100 {
		s, err := GeneratePSPrimary(1, i)
		if err != nil {
			t.Fatal(err)
		}
		if s.Big {
			big++
		}
		drifts += s.Scope.Drifted
		n := len(s.Runs)
		if n < 5 || !s.Runs[n-2].Final || s.Runs[n-2].Command != "sync" || !s.Runs[n-1].Final || s.Runs[n-1].Command != "plan" ||
			s.Runs[n-1].Revision != len(s.Scope.Docs)-1 {
			t.Fatalf("scenario %d: the runs do not end with the final sync and plan of the last revision", i)
		}
		for _, r := range s.Runs {
			tiers[r.Tier]++
			if s.Big && r.Tier != model.TierAdvanced {
				t.Fatalf("scenario %d: a standard run with a value past the standard tier", i)
			}
			k, d := "", ""
			if r.Metadata != nil {
				k, d = r.Metadata.KMSKeyID, r.Metadata.Description
			}
			kms[k]++
			desc[d]++
			if len(r.Faults.Script) > 0 || r.Faults.AmbiguousRate > 0 || r.Faults.ErrorRate > 0 {
				faults++
				if r.Final {
					t.Fatalf("scenario %d: a final run under faults", i)
				}
			}
			if r.MaxDeletions != nil {
				limits++
			}
		}
	}
	if len(tiers) != 2 || len(kms) != len(pspKMS) || len(desc) != len(pspDescriptions) || big == 0 || faults == 0 || drifts == 0 || limits == 0 {
		t.Fatalf("draws: tiers %v kms %v descriptions %v big %d fault runs %d drifts %d max-deletions %d", tiers, kms, desc, big, faults, drifts, limits)
	}
}

// The Parameter Store primary scenarios pass against the real binaries
// (CHAOS_BIN, as for TestRotationScenariosPass; skipped otherwise).
func TestPSPrimaryScenariosPass(t *testing.T) {
	cli, emu, enc, dir := realBinaries(t)
	for i := range 2 {
		s, err := GeneratePSPrimary(11, i)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := PlayPSPrimary(cli, emu, enc, dir(i), s)
		if err != nil {
			t.Fatal(err)
		}
		if vs := CheckPSPrimary(s, ev); len(vs) > 0 {
			t.Fatalf("scenario %d: %v", i, vs)
		}
	}
}
