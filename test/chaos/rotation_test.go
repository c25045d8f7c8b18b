package chaos

import (
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// idealRotation is what a correct CLI leaves after each event of s: the
// generated password until a rotation finished, then the rotation's; the
// synced revision's host; exit 0.
func idealRotation(s RotScenario) []RotObservation {
	var out []RotObservation
	pw, pending, host := "GENERATEDgenerated123456", "", ""
	for _, e := range s.Events {
		o := RotObservation{Event: e, Code: -1}
		if e.Sync {
			o.Code, host = 0, s.Hosts[e.Revision]
		}
		switch e.Step {
		case emulator.RotationCreate:
			pending = e.Password
		case emulator.RotationFinish:
			pw = pending
		}
		if e.Sync && e.Step != "" {
			// The step played during the run; a correct CLI's write
			// re-merged it.
			o.Fired, o.RunPassword, o.RunHost = true, pw, host
		}
		o.Password, o.Host = pw, host
		out = append(out, o)
	}
	return out
}

func kindsOf(vs []Violation) []string {
	var k []string
	for _, v := range vs {
		k = append(k, v.Kind)
	}
	return k
}

// CheckRotation has teeth: an ideal run passes; a sync that writes the
// password back, a final sync that leaves the old host, and an output
// holding a password are each found.
func TestCheckRotation(t *testing.T) {
	for i := range 20 {
		s := GenerateRotation(7, i)
		if vs := CheckRotation(s, idealRotation(s)); len(vs) != 0 {
			t.Fatalf("scenario %d: ideal run judged %v", i, vs)
		}
		last := len(s.Events) - 1
		reverted := idealRotation(s)
		reverted[last].Password = "GENERATEDgenerated123456"
		if !slices.Contains(kindsOf(CheckRotation(s, reverted)), "aws-owned-reverted") {
			t.Fatalf("scenario %d: a password written back by the final sync is not found", i)
		}
		stale := idealRotation(s)
		stale[last].Host = s.Hosts[0] + "x"
		if !slices.Contains(kindsOf(CheckRotation(s, stale)), "aws-owned-converge") {
			t.Fatalf("scenario %d: a stale host is not found", i)
		}
		for j, e := range s.Events {
			if !e.Sync || e.Step != emulator.RotationFinish || j == 0 {
				continue
			}
			// A sync that wrote the old password back while the finish
			// ran between its read and its write, and said converged.
			reverted := idealRotation(s)
			old := reverted[j-1].Password
			if old == reverted[j].Password {
				continue
			}
			reverted[j].RunPassword = old
			if !slices.Contains(kindsOf(CheckRotation(s, reverted)), "aws-owned-reverted") {
				t.Fatalf("scenario %d: a converged sync that reverted the password during the run is not found", i)
			}
			dropped := idealRotation(s)
			dropped[j].RunPendingHost = s.Hosts[0] + "x"
			if !slices.Contains(kindsOf(CheckRotation(s, dropped)), "converged-dropped-at-finish") {
				t.Fatalf("scenario %d: a converged sync whose write a pending version will drop is not found", i)
			}
		}
		blocked := idealRotation(s)
		blocked[len(blocked)/2].Refused = "a rotation is already in flight"
		if !slices.Contains(kindsOf(CheckRotation(s, blocked[:len(blocked)/2+1])), "rotation-blocked") {
			t.Fatalf("scenario %d: a refused rotation step is not found", i)
		}
		crash := idealRotation(s)
		crash[0].Code, crash[0].Outputs = 2, []byte("{}\npanic: runtime error: invalid memory address\n\ngoroutine 10 [running]:\n")
		if !slices.Contains(kindsOf(CheckRotation(s, crash)), "cli-crash") {
			t.Fatalf("scenario %d: a sync that panicked is not found", i)
		}
		leak := idealRotation(s)
		leak[0].Outputs = []byte("log: " + leak[last].Password)
		if !slices.Contains(kindsOf(CheckRotation(s, leak)), "aws-owned-leak") {
			t.Fatalf("scenario %d: a leaked password is not found", i)
		}
	}
}

// The generator draws every point of a run and both
// ways a finish leaves AWSPENDING.
func TestGenerateRotationDrawsEveryPointOfARun(t *testing.T) {
	points := map[string]int{}
	removed := map[bool]int{}
	for i := range 200 {
		for _, e := range GenerateRotation(1, i).Events {
			if e.Sync && e.Step != "" {
				points[e.At]++
				if e.Revision == 0 {
					t.Fatalf("scenario %d: a step during a run of the first revision (the create)", i)
				}
			}
			if e.Step == emulator.RotationFinish {
				removed[e.RemovePending]++
			}
		}
	}
	for _, p := range []string{AtBeforeRead, AtReadWrite, AtVerify} {
		if points[p] == 0 {
			t.Fatalf("no step drawn at %s: %v", p, points)
		}
	}
	if removed[true] == 0 || removed[false] == 0 {
		t.Fatalf("finish steps: %v, want both kinds", removed)
	}
}

// The rotation scenarios pass against the real binaries (CHAOS_BIN, as for
// TestCampaignCatchesBrokenCLIs; skipped otherwise).
func TestRotationScenariosPass(t *testing.T) {
	cli, emu, enc, dir := realBinaries(t)
	for i := range 3 {
		s := GenerateRotation(11, i)
		obs, err := PlayRotation(cli, emu, enc, dir(i), s)
		if err != nil {
			t.Fatal(err)
		}
		if vs := CheckRotation(s, obs); len(vs) > 0 {
			t.Fatalf("scenario %d: %v", i, vs)
		}
	}
}
