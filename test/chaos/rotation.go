package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Rotation scenarios (SPEC §13): one secret whose /password AWS owns
// (aws-owned, generated at create) and whose /host Git owns, with the
// emulator's rotation steps interleaved with syncs of changing /host
// revisions, under ambiguous writes. The invariants: the password is only
// ever what the create generated or what the last finished rotation wrote
// (never reverted to an older value, never written by a sync); /host
// converges to the last revision; no password or host value reaches an
// output.

// RotEvent is one step of a rotation scenario: a sync of a revision (with
// the ambiguous-write rate of its faults), or one rotation step.
type RotEvent struct {
	// Sync: Revision is the revision synced; Ambiguous the emulator's
	// ambiguous-write rate during it (mixed kinds); Final a clean sync
	// that must converge (exit 0).
	Sync      bool
	Revision  int
	Ambiguous float64
	Seed      int64
	Final     bool
	// Step is a rotation step (emulator.RotationCreate … RotationFinish);
	// a create sets /password to Password; a finish with RemovePending
	// takes AWSPENDING off the new current version (by default AWS's
	// sample rotation leaves it there, SPEC §13).
	Step          string
	Password      string
	RemovePending bool
	// At, on a sync that carries a Step, is the point of the sync's run at
	// which the step is played (AtBeforeRead, AtReadWrite, AtVerify); a
	// point the run never reaches (no write) plays the step right after it.
	At string
}

// The points of a sync's run at which a rotation step can be played
// (SPEC §13, "Writes race rotation"): before the first call, just before the first
// PutSecretValue (between the read and the write), and at the first call
// after a PutSecretValue was sent (during verification).
const (
	AtBeforeRead = "before-read"
	AtReadWrite  = "read-write"
	AtVerify     = "verify"
)

// RotScenario is one seeded rotation scenario, pure data.
type RotScenario struct {
	Index int
	// Hosts are the /host values of the revisions, oldest first.
	Hosts  []string
	Events []RotEvent
}

// GenerateRotation draws rotation scenario index of the campaign seed:
// 2-4 revisions, syncs of increasing revisions (the first creates the
// secret), 1-3 rotations whose four steps are spread between the syncs,
// ambiguous writes on some syncs, and a final clean sync once every
// rotation finished. Pure.
func GenerateRotation(seed uint64, index int) RotScenario {
	r := rand.New(rand.NewPCG(seed^0x726f74, uint64(index)))
	s := RotScenario{Index: index}
	for i := range 2 + r.IntN(3) {
		s.Hosts = append(s.Hosts, fmt.Sprintf("%shost%d%016x", CanaryMarker, i, r.Uint64()))
	}
	rev := 0
	sync := func() RotEvent {
		e := RotEvent{Sync: true, Revision: rev, Seed: r.Int64()}
		if r.IntN(2) == 0 {
			e.Ambiguous = 0.3
		}
		if rev < len(s.Hosts)-1 && r.IntN(2) == 0 {
			rev++
		}
		return e
	}
	first := sync()
	first.Ambiguous = 0 // the create is clean: rotation is then turned on
	s.Events = append(s.Events, first)
	steps := []string{emulator.RotationCreate, emulator.RotationSet, emulator.RotationTest, emulator.RotationFinish}
	points := []string{AtBeforeRead, AtReadWrite, AtVerify}
	for range 1 + r.IntN(3) {
		for _, st := range steps {
			e := RotEvent{Step: st}
			if st == emulator.RotationCreate {
				e.Password = fmt.Sprintf("%spw%016x", CanaryMarker, r.Uint64())
			}
			if st == emulator.RotationFinish {
				e.RemovePending = r.IntN(2) == 0
			}
			if r.IntN(3) == 0 {
				// The step is played during a sync's run: a sync that
				// changes /host when it can, so the run writes.
				if rev < len(s.Hosts)-1 {
					rev++
				} else {
					s.Hosts = append(s.Hosts, fmt.Sprintf("%shost%d%016x", CanaryMarker, len(s.Hosts), r.Uint64()))
					rev++
				}
				sy := RotEvent{Sync: true, Revision: rev, Seed: r.Int64(), Step: e.Step, Password: e.Password,
					RemovePending: e.RemovePending, At: points[r.IntN(len(points))]}
				if r.IntN(3) == 0 {
					sy.Ambiguous = 0.3
				}
				s.Events = append(s.Events, sy)
				continue
			}
			s.Events = append(s.Events, e)
			if r.IntN(3) == 0 {
				s.Events = append(s.Events, sync())
			}
		}
	}
	s.Events = append(s.Events, sync())
	s.Events = append(s.Events, RotEvent{Sync: true, Revision: len(s.Hosts) - 1, Final: true})
	return s
}

// RotObservation is what the runner saw after one event: the exit code of
// a sync (-1 for a rotation step) and the live /password and /host.
type RotObservation struct {
	Event          RotEvent
	Code           int
	Password, Host string
	// Outputs are the sync's stdout, stderr and report.
	Outputs []byte
	// Skipped: a rotation step not played (the secret was never created,
	// so rotation could not be turned on).
	Skipped bool
	// For a sync that carries a step: Fired tells whether the step was
	// played during the run (else right after it); RunPassword, RunHost
	// and RunPendingHost are the live /password, /host and the /host of a
	// version labelled AWSPENDING but not AWSCURRENT ("" when none), read
	// when the run ended, before a step played after it.
	// Refused is the emulator's answer when it refused a rotation step
	// (as AWS's RotateSecret refuses to start while a version other than
	// AWSCURRENT holds AWSPENDING): the scenario stops there.
	Refused              string
	Fired                bool
	RunPassword, RunHost string
	RunPendingHost       string
}

// CheckRotation judges a played rotation scenario (pure): the password
// after every event is the generated one until a rotation finished, then
// the last finished rotation's; a sync during a rotation in flight writes
// nothing but may only end 0, 4 (rotation) or, under faults, 5/6; the
// final sync converges with the last revision's /host; no password or host
// value appears in any output.
func CheckRotation(s RotScenario, obs []RotObservation) []Violation {
	var vs []Violation
	add := func(kind, detail string) { vs = append(vs, Violation{Kind: kind, Secret: "rotated", Detail: detail}) }
	want := "" // the password AWS owns now ("" until the create is seen)
	pending := ""
	var secrets []string
	secrets = append(secrets, s.Hosts...)
	for i, o := range obs {
		e := o.Event
		if o.Refused != "" {
			// Every step follows the one before it, so a refusal means the
			// tool left the secret looking mid-rotation (a leftover
			// AWSPENDING moved off AWSCURRENT by a write, SPEC §13).
			add("rotation-blocked", o.Refused)
			break
		}
		before := want
		switch {
		case o.Skipped:
		case e.Step == emulator.RotationCreate:
			pending = e.Password
			secrets = append(secrets, e.Password)
		case e.Step == emulator.RotationFinish:
			want, pending = pending, ""
		}
		if e.Sync && e.Step != "" && o.Code == 0 && before != "" {
			// A run that ended converged holds the synced revision, the
			// password AWS owned when it ended, and no pending version
			// that would drop its write at the rotation's finish.
			atEnd := before
			if o.Fired {
				atEnd = want
			}
			switch {
			case o.RunHost != s.Hosts[e.Revision]:
				add("converged-not-held", fmt.Sprintf("event %d: sync exit 0 (step %s at %s) but the live /host is not the revision's", i+1, e.Step, e.At))
			case o.RunPassword != atEnd:
				add("aws-owned-reverted", fmt.Sprintf("event %d: sync exit 0 (step %s at %s) with the password %s, want %s",
					i+1, e.Step, e.At, short([]byte(o.RunPassword)), short([]byte(atEnd))))
			case o.RunPendingHost != "" && o.RunPendingHost != s.Hosts[e.Revision]:
				add("converged-dropped-at-finish", fmt.Sprintf("event %d: sync exit 0 (step %s at %s) while a pending version holds another /host", i+1, e.Step, e.At))
			}
		}
		if want == "" && o.Password != "" {
			want = o.Password // generated by the create sync
			secrets = append(secrets, want)
			if len(want) != 24 {
				add("aws-owned-generated", fmt.Sprintf("event %d: the generated password has %d characters, want 24", i+1, len(want)))
			}
		}
		if o.Password != want {
			add("aws-owned-reverted", fmt.Sprintf("event %d: the password is %s, want %s (the last the create or a finished rotation wrote)",
				i+1, short([]byte(o.Password)), short([]byte(want))))
		}
		if e.Final {
			if o.Code != 0 {
				add("aws-owned-converge", fmt.Sprintf("final sync exit %d, want 0", o.Code))
			}
			if o.Host != s.Hosts[e.Revision] {
				add("aws-owned-converge", "the Git-owned /host is not the last revision's after the final sync")
			}
		}
		if e.Sync && crashed(o.Outputs) {
			add("cli-crash", fmt.Sprintf("event %d: the sync crashed (a Go panic, exit %d)", i+1, o.Code))
		} else if e.Sync && !e.Final && !(o.Code == 0 || o.Code == 4 || o.Code == 5 || o.Code == 6) {
			add("exit-status-mismatch", fmt.Sprintf("event %d: sync exit %d", i+1, o.Code))
		}
	}
	for i, o := range obs {
		for _, v := range secrets {
			if v != "" && bytes.Contains(o.Outputs, []byte(v)) {
				add("aws-owned-leak", fmt.Sprintf("event %d: a password or host value in an output", i+1))
				break
			}
		}
	}
	return vs
}

// PlayRotation plays s against a fresh emulator process with the CLI and
// returns what it observed after every event.
func PlayRotation(cli, emuBin string, enc *Encrypter, dir string, s RotScenario) ([]RotObservation, error) {
	emu, err := StartEmulator(emuBin)
	if err != nil {
		return nil, err
	}
	defer emu.Close()
	var revs []map[string]Doc
	for _, h := range s.Hosts {
		d := Doc{Path: "secrets/db/main.sops.json", Format: canonical.JSON, Plain: []byte(`{"host": "` + h + `", "port": 5432}`)}
		revs = append(revs, map[string]Doc{d.Path: d})
	}
	repo, _, err := commitRevisions(enc, dir, revs, nil)
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("aws-owned:\n  - secret: db/*\n    keys: [/password]\n    generate: 24\n"), 0o600); err != nil {
		return nil, err
	}
	const name = "rot/app/db/main"
	live := func() (pw, host, pendingHost string) {
		st, err := emu.State(context.Background())
		if err != nil {
			return "", "", ""
		}
		for _, sd := range st.Secrets {
			if sd.Name != name {
				continue
			}
			for _, v := range sd.Versions {
				if v.SecretString == nil {
					continue
				}
				var m map[string]any
				_ = json.Unmarshal([]byte(*v.SecretString), &m)
				switch {
				case containsStage(v.Stages, "AWSCURRENT"):
					pw, _ = m["password"].(string)
					host, _ = m["host"].(string)
				case containsStage(v.Stages, "AWSPENDING"):
					pendingHost, _ = m["host"].(string)
				}
			}
		}
		return pw, host, pendingHost
	}
	rotate := func(i int, e RotEvent) error {
		rot := emulator.Rotation{Name: name, Step: e.Step, RemovePending: e.RemovePending}
		if e.Password != "" {
			rot.Values = map[string]string{"/password": e.Password}
		}
		if _, err := emu.Rotate(context.Background(), rot); err != nil {
			return &refusedStep{fmt.Sprintf("event %d: rotation step %s: %v", i+1, e.Step, err)}
		}
		return nil
	}
	proxy, err := NewProxy(emu.URL)
	if err != nil {
		return nil, err
	}
	defer proxy.Close()
	enabled := false
	var out []RotObservation
	for i, e := range s.Events {
		o := RotObservation{Event: e, Code: -1}
		if e.Sync {
			proxy.Arm(i+1, nil, nil)
			var stepErr error
			during := e.Step != "" && enabled
			if during {
				fn := func() { stepErr = rotate(i, e) }
				switch e.At {
				case AtBeforeRead:
					proxy.OnOp("", "", fn)
				case AtReadWrite:
					proxy.OnOp("PutSecretValue", "", fn)
				default:
					proxy.OnOp("", "PutSecretValue", fn)
				}
			}
			faults := emulator.Faults{Seed: e.Seed, AmbiguousRate: e.Ambiguous, AmbiguousKind: "mixed"}
			if err := emu.SetFaults(context.Background(), faults); err != nil {
				return nil, err
			}
			report := filepath.Join(dir, fmt.Sprintf("report-%d.json", i+1))
			timeouts := []string{"--run-timeout", "8s", "--verification-timeout", "2s", "--operation-timeout", "2s"}
			if e.Final {
				timeouts = []string{"--run-timeout", "60s", "--verification-timeout", "15s", "--operation-timeout", "10s"}
			}
			args := append([]string{"sync", "--repository", repo, "--revision", "rev-" + strconv.Itoa(e.Revision),
				"--repository-id", "chaos/rotation", "--secret-prefix", "rot/app", "--aws-region", ChaosRegion,
				"--config", cfg, "--report-file", report, "--log-level", "debug", "--aws-max-attempts", "1"}, timeouts...)
			rr, err := execCLI(cli, args, cliEnv(dir, enc, "AKIACHAOSROTATION", "chaos-rotation-secret", "AWS_ENDPOINT_URL_SECRETS_MANAGER="+proxy.URL), report, nil)
			if err != nil {
				return nil, err
			}
			o.Code = rr.Exit
			proxy.Drain()
			o.Outputs = bytes.Join([][]byte{rr.Stdout, rr.Stderr, rr.Report}, []byte("\n"))
			if during {
				o.Fired = proxy.Fired()
				o.RunPassword, o.RunHost, o.RunPendingHost = live()
				if !o.Fired {
					stepErr = rotate(i, e)
				}
				if stepErr != nil {
					o.Refused = stepErr.Error()
					return append(out, o), nil
				}
			} else if e.Step != "" {
				o.Skipped = true
			}
			if err := emu.SetFaults(context.Background(), emulator.Faults{}); err != nil {
				return nil, err
			}
			if !enabled {
				if emu.SetConditions(context.Background(), emulator.Conditions{Name: name, RotationEnabled: boolPtr(true)}) == nil {
					enabled = true
				}
			}
		} else if !enabled {
			o.Skipped = true
		} else if err := rotate(i, e); err != nil {
			o.Refused = err.Error()
			return append(out, o), nil
		}
		o.Password, o.Host, _ = live()
		out = append(out, o)
	}
	return out, nil
}

// crashed reports whether a run's outputs hold a Go runtime panic (its
// exit code is then the runtime's 2, which sync never means).
func crashed(out []byte) bool {
	return bytes.Contains(out, []byte("panic: ")) && bytes.Contains(out, []byte("\ngoroutine "))
}

// refusedStep is a rotation step the emulator refused.
type refusedStep struct{ msg string }

func (r *refusedStep) Error() string { return r.msg }

func containsStage(stages []string, s string) bool {
	for _, x := range stages {
		if x == s {
			return true
		}
	}
	return false
}

func boolPtr(b bool) *bool { return &b }
