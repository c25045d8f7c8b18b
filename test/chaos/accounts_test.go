package chaos

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// idealAccounts is what a correct CLI leaves after each run of s: nothing
// applied with more unreachable scopes than allowed or a content error;
// otherwise every reachable scope holding its revision (one write each
// time its documents change), the others skipped as unreachable.
func idealAccounts(s AccScenario) AccEvidence {
	ev := AccEvidence{States: []emulator.StateDump{{}}}
	for a := range s.Accounts {
		ev.IDs = append(ev.IDs, fmt.Sprintf("1111111111%02d", a))
	}
	applied := make([]int, len(s.Scopes))
	for k := range applied {
		applied[k] = -1
	}
	for i, run := range s.Runs {
		u := s.UnreachableScopes(run)
		status, exit := vocab.StatusConverged, 0
		switch {
		case u > run.Max:
			status, exit = vocab.StatusObservationFailed, 5
		case run.Broken:
			status, exit = vocab.StatusInvalid, 3
		case u > 0:
			status, exit = vocab.StatusUnreachable, 5
		}
		type scopeLine struct {
			Name   string       `json:"name"`
			Status vocab.Status `json:"status"`
		}
		var lines []scopeLine
		for k, sc := range s.Scopes {
			_, down := run.Unreachable[sc.Account]
			st := status
			switch {
			case status == vocab.StatusUnreachable && down:
			case status == vocab.StatusUnreachable:
				st = vocab.StatusConverged
			}
			if (status == vocab.StatusConverged || status == vocab.StatusUnreachable) && !down && applied[k] != run.Revision {
				applied[k] = run.Revision
				ev.Calls = append(ev.Calls, Call{Run: i + 1, Op: "PutSecretValue"})
			}
			lines = append(lines, scopeLine{sc.Name, st})
		}
		rep, _ := json.Marshal(map[string]any{"status": status, "scopes": lines})
		ev.Runs = append(ev.Runs, RunResult{Exit: exit, Report: rep})
		var st emulator.StateDump
		for k, sc := range s.Scopes {
			if applied[k] < 0 {
				continue
			}
			for p, d := range sc.Docs[applied[k]] {
				v := string(d.Canon)
				st.Secrets = append(st.Secrets, emulator.SecretDump{Account: ev.IDs[sc.Account], Region: sc.Region, Name: SecretName(sc.Scope, p),
					Tags:     map[string]string{model.TagManagedBy: model.ManagedByValue, model.TagScope: sc.Scope.Digest()},
					Versions: []emulator.VersionDump{{VersionID: fmt.Sprintf("v%d", applied[k]), Stages: []string{"AWSCURRENT"}, SecretString: &v}}})
			}
		}
		ev.States = append(ev.States, st)
	}
	return ev
}

func clone(ev AccEvidence) AccEvidence {
	b, _ := json.Marshal(ev)
	var out AccEvidence
	_ = json.Unmarshal(b, &out)
	return out
}

// CheckAccounts has teeth: the ideal evidence passes; a write in a run
// with more unreachable scopes than allowed, a scope left out of a
// report, a reachable scope not converged after a run that skipped
// others, a change in an unreachable account, a final run that does not
// converge and an account id in an output are each found.
func TestCheckAccounts(t *testing.T) {
	seen := map[string]bool{}
	for i := range 40 {
		s, err := GenerateAccounts(3, i)
		if err != nil {
			t.Fatal(err)
		}
		ideal := idealAccounts(s)
		if vs := CheckAccounts(s, ideal); len(vs) != 0 {
			t.Fatalf("scenario %d: ideal evidence judged %v", i, vs)
		}
		expect := func(kind string, ev AccEvidence) {
			t.Helper()
			seen[kind] = true
			if !slices.Contains(kindsOf(CheckAccounts(s, ev)), kind) {
				t.Fatalf("scenario %d: %s not found", i, kind)
			}
		}
		last := len(s.Runs) - 1
		ev := clone(ideal)
		ev.Runs[last].Exit = 5
		expect("acc-no-convergence", ev)
		ev = clone(ideal)
		ev.Runs[0].Stderr = []byte("assumed arn:aws:iam::" + ev.IDs[0] + ":role/x")
		expect("acc-leak", ev)
		ev = clone(ideal)
		ev.Runs[last].Report = []byte(`{"status":"converged","scopes":[{"name":"s00","status":"converged"}]}`)
		expect("acc-silent-skip", ev)
		for k, run := range s.Runs {
			u := s.UnreachableScopes(run)
			if u > run.Max || run.Broken {
				ev = clone(ideal)
				ev.Calls = append(ev.Calls, Call{Run: k + 1, Op: "CreateSecret"})
				expect("acc-applied-beyond-max", ev)
			}
			if u > 0 && u <= run.Max && !run.Broken {
				ev = clone(ideal)
				for a := range run.Unreachable {
					v := "x"
					ev.States[k+1].Secrets = append(ev.States[k+1].Secrets, emulator.SecretDump{Account: ev.IDs[a], Region: ChaosRegion, Name: "acc/zz/x",
						Versions: []emulator.VersionDump{{VersionID: "new", Stages: []string{"AWSCURRENT"}, SecretString: &v}}})
				}
				expect("acc-unreachable-written", ev)
				ev = clone(ideal)
				for j, d := range ev.States[k+1].Secrets {
					if !slices.Contains(mapKeys(run.Unreachable, ev.IDs), d.Account) {
						stale := "stale"
						ev.States[k+1].Secrets[j].Versions[0].SecretString = &stale
						break
					}
				}
				expect("acc-not-converged", ev)
			}
		}
	}
	for _, k := range []string{"acc-applied-beyond-max", "acc-unreachable-written", "acc-not-converged"} {
		if !seen[k] {
			t.Errorf("no generated scenario exercised %s", k)
		}
	}
}

// mapKeys is the account ids of the accounts in m.
func mapKeys(m map[int]string, ids []string) []string {
	var out []string
	for a := range m {
		out = append(out, ids[a])
	}
	return out
}

// The generator draws every way of being unreachable, runs within and
// beyond --max-unreachable-scopes, broken commits and kill plans, and its
// final runs are clean.
func TestGenerateAccountsDrawsEveryCase(t *testing.T) {
	modes := map[string]int{}
	within, beyond, broken, kills := 0, 0, 0, 0
	for i := range 60 {
		s, err := GenerateAccounts(1, i)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Scopes) < 20 || len(s.Scopes) > 40 || s.Accounts < 3 || s.Accounts > 6 {
			t.Fatalf("scenario %d: %d scopes over %d accounts", i, len(s.Scopes), s.Accounts)
		}
		for _, run := range s.Runs {
			for _, m := range run.Unreachable {
				modes[m]++
			}
			u := s.UnreachableScopes(run)
			switch {
			case u > run.Max:
				beyond++
			case u > 0:
				within++
			}
			if run.Broken {
				broken++
			}
			if run.Kill != nil {
				kills++
			}
		}
		f1, f2 := s.Runs[len(s.Runs)-2], s.Runs[len(s.Runs)-1]
		if !f1.Final || !f2.Final || f1.Kill != nil || f2.Kill != nil || f1.Broken || f2.Broken || len(f2.Unreachable) != 0 ||
			len(f1.Unreachable) != 1 || s.UnreachableScopes(f1) != f1.Max {
			t.Fatalf("scenario %d: final runs %+v %+v", i, f1, f2)
		}
	}
	if modes[AccRefuse] == 0 || modes[AccSilent] == 0 || modes[AccSuspended] == 0 || within == 0 || beyond == 0 || broken == 0 || kills == 0 {
		t.Fatalf("draws: modes %v, within %d, beyond %d, broken %d, kills %d", modes, within, beyond, broken, kills)
	}
}

// The many-accounts scenarios pass against the real binaries (CHAOS_BIN;
// skipped otherwise).
func TestAccountsScenariosPass(t *testing.T) {
	cli, emu, enc, dir := realBinaries(t)
	for i := range 2 {
		s, err := GenerateAccounts(11, i)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := PlayAccounts(cli, emu, enc, dir(i), s)
		if err != nil {
			t.Fatal(err)
		}
		if vs := CheckAccounts(s, ev); len(vs) > 0 {
			t.Fatalf("scenario %d: %v", i, vs)
		}
	}
}
