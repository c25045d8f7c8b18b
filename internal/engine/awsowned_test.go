package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func awsOwnedCfg(e *env, mode engine.Mode, entries ...model.AWSOwned) engine.Config {
	cfg := e.cfg(mode, 4)
	cfg.AWSOwned = entries
	return cfg
}

func liveKey(t *testing.T, e *env, name, key string) string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal([]byte(current(e.secret(t, name))), &m); err != nil {
		t.Fatalf("live value of %s is not a JSON object of strings: %v", name, err)
	}
	return m[key]
}

// A rotation that finishes between the plan and the write (AWSCURRENT
// moved): the precondition sees it, the plan is rebuilt once from a new
// observation, and the merge written carries the rotated password, never
// the one read at planning (SPEC §13, §6).
func TestAWSOwned_RotationFinishedBeforeTheWriteReplansOnce(t *testing.T) {
	e := newEnv(t)
	entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
	res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h1","password":"seed"}`}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	e.srv.SetConditions(t, emulator.Conditions{Name: nameOf("db"), RotationEnabled: aws.Bool(true)})
	e.srv.Rotate(t, emulator.Rotation{Name: nameOf("db"), Step: emulator.RotationCreate, Values: map[string]string{"/password": "r1"}})
	e.srv.Rotate(t, emulator.Rotation{Name: nameOf("db"), Step: emulator.RotationFinish, RemovePending: true})

	var once bool
	hp := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
		if n == 2 && !once { // the precondition's describe: a rotation finishes just before it
			once = true
			e.srv.Rotate(t, emulator.Rotation{Name: nameOf("db"), Step: emulator.RotationCreate, Values: map[string]string{"/password": "r2"}})
			e.srv.Rotate(t, emulator.Rotation{Name: nameOf("db"), Step: emulator.RotationFinish, RemovePending: true})
		}
	}}
	res = e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), hp)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
	if !strings.Contains(e.logs.String(), "target changed since planning") {
		t.Error("the precondition must have seen the rotation")
	}
	if got := liveKey(t, e, nameOf("db"), "password"); got != "r2" {
		t.Errorf("password %q after the run, want the rotated r2 (never reverted to r1 or the document's)", got)
	}
	if got := liveKey(t, e, nameOf("db"), "host"); got != "h2" {
		t.Errorf("host %q, want the document's h2", got)
	}
}

// A create with generate draws the value once: the generator is called
// once per missing key, and what it drew is stored.
func TestAWSOwned_CreateGeneratesTheMissingKeyOnce(t *testing.T) {
	e := newEnv(t)
	cfg := awsOwnedCfg(e, engine.ModeSync, model.AWSOwned{Secret: "db", Keys: []string{"/password", "/host"}, Generate: 16})
	g := &countingGen{}
	cfg.Generator = g
	res := e.runPort(t, cfg, state(doc{"db", `{"host":"h1"}`}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	if g.n != 1 {
		t.Errorf("generator called %d times, want 1 (only /password is missing)", g.n)
	}
	if got := liveKey(t, e, nameOf("db"), "password"); got != "GGGGGGGGGGGGGGGG" {
		t.Errorf("password %q, want the generated value", got)
	}
	if got := liveKey(t, e, nameOf("db"), "host"); got != "h1" {
		t.Errorf("host %q, want the document's", got)
	}
}

type countingGen struct{ n int }

func (g *countingGen) Generate(n int) string { g.n++; return strings.Repeat("G", n) }

func TestCryptoGenerator(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		v := engine.CryptoGenerator{}.Generate(32)
		if len(v) != 32 || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != "" || seen[v] {
			t.Fatalf("generated %q: want 32 fresh characters of [A-Za-z0-9]", v)
		}
		seen[v] = true
	}
}

// Every character of [A-Za-z0-9] is drawn alike: of 620,000 characters
// each of the 62 appears about 10,000 times (a binomial standard deviation
// of about 99; the bounds are ten of them). A source that favoured one
// character by a quarter (bytes up to 248 kept: 248 mod 62 is 'A' once
// more) or drew from part of the alphabet would be outside them.
func TestCryptoGenerator_EveryCharacterEquallyLikely(t *testing.T) {
	const n = 620_000
	v := engine.CryptoGenerator{}.Generate(n)
	if len(v) != n {
		t.Fatalf("generated %d characters, want %d", len(v), n)
	}
	counts := map[rune]int{}
	for _, c := range v {
		counts[c]++
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	if len(counts) != len(alphabet) {
		t.Errorf("%d distinct characters, want the %d of [A-Za-z0-9]", len(counts), len(alphabet))
	}
	for _, c := range alphabet {
		if got := counts[c]; got < 9_000 || got > 11_000 {
			t.Errorf("%q drawn %d times of %d, want 10,000 ± 1,000", c, got, n)
		}
	}
}

// A create that generates a missing key stores the whole value in its
// canonical form (RFC 8785, SPEC §13), as every other write does: a
// document's string holding U+2028 is written as the character itself,
// never as the escape Go's JSON encoder would give.
func TestAWSOwned_GeneratedValueIsStoredCanonical(t *testing.T) {
	e := newEnv(t)
	cfg := awsOwnedCfg(e, engine.ModeSync, model.AWSOwned{Secret: "db", Keys: []string{"/password"}, Generate: 4})
	cfg.Generator = &countingGen{}
	res := e.runPort(t, cfg, state(doc{"db", "{\"host\":\"a\u2028b\"}"}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	if got, want := current(e.secret(t, nameOf("db"))), "{\"host\":\"a\u2028b\",\"password\":\"GGGG\"}"; got != want {
		t.Errorf("stored %q, want the canonical %q", got, want)
	}
}

// bigDoc is a JSON document of exactly size canonical bytes:
// {"host":"h","pad":"xx…"}.
func bigDoc(t *testing.T, size int) string {
	t.Helper()
	v := `{"host":"h","pad":"` + strings.Repeat("x", size-len(`{"host":"h","pad":""}`)) + `"}`
	if len(v) != size {
		t.Fatalf("bigDoc: %d bytes, want %d", len(v), size)
	}
	return v
}

// TestRegression_GeneratedKeyPastTheSizeLimitIsWrittenWithoutIt: a
// document just under Secrets Manager's 65,536 bytes whose /password
// aws-owned generates (32 characters) planned a clean create, then
// created the secret without the key it could not fit (exit 6), and every
// later run was conflict aws-owned-missing on a secret the tool made. The
// plan must refuse it before any write: gate:value-too-large naming the
// document by its resource label, status invalid, no mutating call, in
// plan and sync; at the limit exactly, the create goes ahead with the key.
func TestRegression_GeneratedKeyPastTheSizeLimitIsWrittenWithoutIt(t *testing.T) {
	e := newEnv(t)
	entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}, Generate: 32}
	// The create sends {"host":"h","pad":"…","password":"<32>"}: the
	// document plus ,"password":"" (14 bytes) plus 32.
	over := bigDoc(t, model.MaxValueBytes-14-32+1)
	for _, mode := range []engine.Mode{engine.ModePlan, engine.ModeSync} {
		before := e.calls(t)
		res := e.runPort(t, awsOwnedCfg(e, mode, entry), state(doc{"db", over}), e.port)
		if res.Status != vocab.StatusInvalid {
			t.Fatalf("mode %v: status %s, want invalid", mode, res.Status)
		}
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Errorf("mode %v: %d mutating calls, want none", mode, n)
		}
		if len(res.Diagnostics) != 1 || res.Diagnostics[0].Class != diag.GateValueTooLarge || res.Diagnostics[0].Subject.Label() != "resource-0001" {
			t.Fatalf("mode %v: diagnostics %+v, want one gate:value-too-large about resource-0001", mode, res.Diagnostics)
		}
		if d := res.Diagnostics[0]; !strings.Contains(d.Summary, "65536 bytes") || d.Next == "" {
			t.Errorf("mode %v: %q / %q: the summary names the limit, the next action is given", mode, d.Summary, d.Next)
		}
		if d := res.Diagnostics[0]; !strings.Contains(d.Summary, "generated at their configured length") || !strings.Contains(d.Summary, "the create would store") {
			t.Errorf("mode %v: %q: a create's summary says the keys are generated at their length", mode, d.Summary)
		}
	}
	at := bigDoc(t, model.MaxValueBytes-14-32)
	res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", at}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	if got := liveKey(t, e, nameOf("db"), "password"); len(got) != 32 {
		t.Errorf("password of %d characters, want the generated 32", len(got))
	}
	if n := len(current(e.secret(t, nameOf("db")))); n != model.MaxValueBytes {
		t.Errorf("stored %d bytes, want exactly %d", n, model.MaxValueBytes)
	}
}

// TestRegression_OversizedMergeOfAnUpdatePlannedConflictAWSOwnedMissing:
// a secret created at the limit exactly with a generated /password, whose
// document then grew by one byte, planned conflict aws-owned-missing (the
// merge with the live password was refused by the canonicalizer's size
// rule, taken for a key the tool did not know): the next action named
// was wrong and the run exit 4. The plan must say what it is, in plan
// and sync: gate:value-too-large about the document, status invalid, no
// mutating call, the summary naming the merge and the limit.
func TestRegression_OversizedMergeOfAnUpdatePlannedConflictAWSOwnedMissing(t *testing.T) {
	e := newEnv(t)
	entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}, Generate: 32}
	at := bigDoc(t, model.MaxValueBytes-14-32)
	res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", at}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	over := bigDoc(t, model.MaxValueBytes-14-32+1)
	for _, mode := range []engine.Mode{engine.ModePlan, engine.ModeSync} {
		before := e.calls(t)
		res := e.runPort(t, awsOwnedCfg(e, mode, entry), state(doc{"db", over}), e.port)
		if res.Status != vocab.StatusInvalid || res.Counts.Conflicts != 0 {
			t.Fatalf("mode %v: status %s, %d conflicts; want invalid, none", mode, res.Status, res.Counts.Conflicts)
		}
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Errorf("mode %v: %d mutating calls, want none", mode, n)
		}
		if len(res.Diagnostics) != 1 || res.Diagnostics[0].Class != diag.GateValueTooLarge || res.Diagnostics[0].Subject.Label() != "resource-0001" {
			t.Fatalf("mode %v: diagnostics %+v, want one gate:value-too-large about resource-0001", mode, res.Diagnostics)
		}
		if d := res.Diagnostics[0]; !strings.Contains(d.Summary, "merged") || !strings.Contains(d.Summary, "the update would store") || !strings.Contains(d.Summary, "65536 bytes") {
			t.Errorf("mode %v: %q: the summary names the merge, the update and the limit", mode, d.Summary)
		}
	}
	if n := len(current(e.secret(t, nameOf("db")))); n != model.MaxValueBytes {
		t.Errorf("stored %d bytes after the refused runs, want the %d the create wrote", n, model.MaxValueBytes)
	}
}

// strayPending returns the ids of the versions of name that carry
// AWSPENDING without AWSCURRENT: what AWS's RotateSecret and the planner
// take for a rotation in flight.
func strayPending(t *testing.T, e *env, name string) []string {
	t.Helper()
	var out []string
	for _, v := range e.secret(t, name).Versions {
		if slices.Contains(v.Stages, "AWSPENDING") && !slices.Contains(v.Stages, "AWSCURRENT") {
			out = append(out, v.VersionID)
		}
	}
	return out
}

// rotateFully runs a whole rotation of name setting /password to pw; its
// finish leaves AWSPENDING on the new current version unless removePending.
func rotateFully(t *testing.T, e *env, name, pw string, removePending bool) {
	t.Helper()
	e.srv.Rotate(t, emulator.Rotation{Name: name, Step: emulator.RotationCreate, Values: map[string]string{"/password": pw}})
	e.srv.Rotate(t, emulator.Rotation{Name: name, Step: emulator.RotationFinish, RemovePending: removePending})
}

// rotatingPort runs rotate before each of the first n PutValue calls: a
// rotation that finishes between the read the merge was computed from
// (and the precondition) and the write.
type rotatingPort struct {
	Port
	mu     sync.Mutex
	n      int
	rotate func(i int)
}

func (p *rotatingPort) PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (engine.WriteResult, error) {
	p.mu.Lock()
	i := p.n
	p.n++
	p.mu.Unlock()
	if p.rotate != nil {
		p.rotate(i)
	}
	return p.Port.PutValue(ctx, id, value, kind, token)
}

// seedRotating creates db ({"host":"h1","password":"seed"}, /password
// owned by AWS) with a sync and turns rotation on.
func seedRotating(t *testing.T, e *env, entry model.AWSOwned) {
	t.Helper()
	res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h1","password":"seed"}`}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	e.srv.SetConditions(t, emulator.Conditions{Name: nameOf("db"), RotationEnabled: aws.Bool(true)})
}

// Regression (issue 42 item 1): after a rotation that left AWSPENDING on
// the current version (as AWS may, and its sample functions do), a Git
// change wrote a new version and the label stayed on the replaced one:
// verification saw a rotation in flight (exit 6), every later run was
// conflict rotation (exit 4), and AWS's next RotateSecret would not start.
// The write now removes the label from the version it replaces
// (UpdateSecretVersionStage). Both finishes: label left on (the fix's
// case; failed before it) and removed by the rotation (no extra call).
func TestRegression_LeftoverPendingLabelAfterRotationSurvivesAGitChange(t *testing.T) {
	for _, removePending := range []bool{false, true} {
		t.Run(fmt.Sprintf("remove_pending=%v", removePending), func(t *testing.T) {
			e := newEnv(t)
			entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
			seedRotating(t, e, entry)
			rotateFully(t, e, nameOf("db"), "r1", removePending)

			before := e.calls(t)
			res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), e.port)
			wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
			if got := liveKey(t, e, nameOf("db"), "password"); got != "r1" {
				t.Errorf("password %q, want the rotated r1", got)
			}
			if got := liveKey(t, e, nameOf("db"), "host"); got != "h2" {
				t.Errorf("host %q, want h2", got)
			}
			if got := strayPending(t, e, nameOf("db")); len(got) != 0 {
				t.Errorf("AWSPENDING left on non-current versions %v: a rotation in flight to AWS and to the next run", got)
			}
			wantStage := int64(1)
			if removePending {
				wantStage = 0
			}
			if n := e.calls(t)["UpdateSecretVersionStage"] - before["UpdateSecretVersionStage"]; n != wantStage {
				t.Errorf("%d UpdateSecretVersionStage calls, want %d", n, wantStage)
			}

			// AWS's next rotation starts, and the runs after it converge.
			if _, err := e.srv.Control().Rotate(context.Background(), emulator.Rotation{Name: nameOf("db"), Step: emulator.RotationCreate, Values: map[string]string{"/password": "r2"}}); err != nil {
				t.Fatalf("the next rotation does not start: %v", err)
			}
			e.srv.Rotate(t, emulator.Rotation{Name: nameOf("db"), Step: emulator.RotationFinish, RemovePending: removePending})
			res = e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h3","password":"seed"}`}), e.port)
			wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
			res = e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h3","password":"seed"}`}), e.port)
			wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 1})
			if got := liveKey(t, e, nameOf("db"), "password"); got != "r2" {
				t.Errorf("password %q, want the rotated r2", got)
			}
		})
	}
}

// Regression (issue 42 item 2): a rotation that finished between the
// read (and the precondition) and the write let PutSecretValue put the
// merge of the older password back, and the run said converged. The
// lineage shows it (AWSPREVIOUS after the write is not the version the
// merge was computed from): the rotated version is moved back to
// AWSCURRENT, the plan rebuilt, the merge written once more on it. Before
// the fix the password was "seed" after a converged run.
func TestRegression_RotationFinishedBetweenReadAndWriteIsNotReverted(t *testing.T) {
	for _, removePending := range []bool{false, true} {
		t.Run(fmt.Sprintf("remove_pending=%v", removePending), func(t *testing.T) {
			e := newEnv(t)
			entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
			seedRotating(t, e, entry)
			p := &rotatingPort{Port: e.port, rotate: func(i int) {
				if i == 0 {
					rotateFully(t, e, nameOf("db"), "r1", removePending)
				}
			}}
			res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), p)
			wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
			if got := liveKey(t, e, nameOf("db"), "password"); got != "r1" {
				t.Fatalf("password %q after a converged run, want the rotated r1 (never the seed read before the rotation)", got)
			}
			if got := liveKey(t, e, nameOf("db"), "host"); got != "h2" {
				t.Errorf("host %q, want h2", got)
			}
			if p.n != 2 {
				t.Errorf("%d value writes, want 2 (the raced one and the merge on the rotated value)", p.n)
			}
			if got := strayPending(t, e, nameOf("db")); len(got) != 0 {
				t.Errorf("AWSPENDING left on non-current versions %v", got)
			}
			if !strings.Contains(e.logs.String(), "the rotated version is current again") {
				t.Error("the race must be logged")
			}
			if len(res.Failures) != 0 {
				t.Errorf("failure records in a converged run: %+v", res.Failures)
			}
			rotateFully(t, e, nameOf("db"), "r2", removePending) // AWS's next rotation starts
		})
	}
}

// A rotation that finishes between the read and the write twice in one
// run: the rotated version is current again, the run ends exit 6
// verify:rotation-raced naming the secret, never converged.
func TestAWSOwned_RotationRacingEveryWriteEndsRaced(t *testing.T) {
	e := newEnv(t)
	entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
	seedRotating(t, e, entry)
	p := &rotatingPort{Port: e.port, rotate: func(i int) {
		rotateFully(t, e, nameOf("db"), fmt.Sprintf("r%d", i+1), false)
	}}
	res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), p)
	if res.Status != vocab.StatusVerificationFailed {
		t.Fatalf("status %s, want verification-failed", res.Status)
	}
	if len(res.Failures) != 1 || res.Failures[0].Class != diag.VerifyRotationRaced || res.Failures[0].Name != nameOf("db") {
		t.Fatalf("failures %+v, want one verify:rotation-raced naming the secret", res.Failures)
	}
	if got := liveKey(t, e, nameOf("db"), "password"); got != "r2" {
		t.Errorf("password %q, want the last rotated r2 current again", got)
	}
}

// TestRegression_RestoreFollowUpRevertsTheAWSOwnedKey: an owned secret
// whose /password AWS owns (rotated since its create) is restored from a
// scheduled deletion while a Git-owned key changed. The follow-up update
// after the restore wrote the document alone: the rotated password went
// back to the document's seed, and the run ended converged (verification
// merges the live value, so it saw nothing wrong). It must write the
// merge, as any update does (SPEC §13: an AWS-owned key is never
// reverted).
func TestRegression_RestoreFollowUpRevertsTheAWSOwnedKey(t *testing.T) {
	e := newEnv(t)
	entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
	res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h1","password":"seed"}`}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	e.put(t, nameOf("db"), `{"host":"h1","password":"rotated"}`)
	e.del(t, nameOf("db"))

	res = e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Restore: 1, Update: 1})
	if got := liveKey(t, e, nameOf("db"), "password"); got != "rotated" {
		t.Errorf("password %q after the restore and its follow-up, want the AWS-owned rotated (never the document's seed)", got)
	}
	if got := liveKey(t, e, nameOf("db"), "host"); got != "h2" {
		t.Errorf("host %q, want the document's h2", got)
	}
	for _, op := range res.Plan {
		if op.Action == vocab.ActionUpdate && (op.Keys == nil || len(op.Keys.Changed) != 1 || op.Keys.Changed[0].Pointer != "/host") {
			t.Errorf("the follow-up's keys %+v, want only /host changed", op.Keys)
		}
	}
}

// lostWrite runs one sync of db with host h2 whose first PutSecretValue
// lands and loses its answer (the emulator's ambiguous-after-apply, no SDK
// retry): the driver learns what the write did only from its
// re-observation.
func lostWrite(t *testing.T, e *env, entry model.AWSOwned) engine.Result {
	t.Helper()
	e.srv.SetFaults(t, emulator.Faults{Script: script("PutSecretValue", "ambiguous-after-apply", 1)})
	defer e.srv.SetFaults(t, emulator.Faults{})
	return e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), e.port)
}

// Regression: a rotation finished and left AWSPENDING on the current
// version; the next sync's PutSecretValue landed and its answer was lost.
// The re-observation saw AWSPENDING on the replaced version (now
// AWSPREVIOUS), took it for a rotation in flight (conflict rotation) and
// ended the run before the lineage step removed the label, and every later
// run was conflict rotation (exit 4) on a label the tool's own write had
// moved off AWSCURRENT. A write proven by its re-observation (the current
// version is the write's token) is now followed by the lineage exactly as
// a write whose answer arrived. Failed before the fix: status conflict,
// one stray AWSPENDING.
func TestRegression_LostWriteResponseAfterRotationLeavesPendingOnReplacedVersion(t *testing.T) {
	e := newEnv(t, noSDKRetry)
	entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
	seedRotating(t, e, entry)
	rotateFully(t, e, nameOf("db"), "r1", false)

	before := e.calls(t)
	res := lostWrite(t, e, entry)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
	if n := e.calls(t)["PutSecretValue"] - before["PutSecretValue"]; n != 1 {
		t.Errorf("%d PutSecretValue calls, want 1 (the landed write is proven, never resent)", n)
	}
	if got := strayPending(t, e, nameOf("db")); len(got) != 0 {
		t.Errorf("AWSPENDING left on non-current versions %v: a rotation in flight to AWS and to every later run", got)
	}
	if got := liveKey(t, e, nameOf("db"), "password"); got != "r1" {
		t.Errorf("password %q, want the rotated r1", got)
	}
	if got := liveKey(t, e, nameOf("db"), "host"); got != "h2" {
		t.Errorf("host %q, want h2", got)
	}
	// AWS's next rotation starts and the next run has nothing to do.
	rotateFully(t, e, nameOf("db"), "r2", false)
	res = e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), e.port)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 1})
}

// Regression: the value write of a secret with keys owned by AWS landed
// and its answer was lost, with no label left to move (no rotation yet, or
// one whose finish removed AWSPENDING): the re-observation showed the value
// written, and the driver asked the next step, the lineage row, whether it
// was done, a rule that row does not have: a nil function call, the CLI
// panicked (Go's exit 2, no report). Failed before the fix with that panic.
func TestRegression_LostWriteResponseOfAnAWSOwnedMergeCrashesTheRun(t *testing.T) {
	for _, rotated := range []bool{false, true} {
		t.Run(fmt.Sprintf("rotated=%v", rotated), func(t *testing.T) {
			e := newEnv(t, noSDKRetry)
			entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
			seedRotating(t, e, entry)
			pw := liveKey(t, e, nameOf("db"), "password")
			if rotated {
				rotateFully(t, e, nameOf("db"), "r1", true)
				pw = "r1"
			}
			res := lostWrite(t, e, entry)
			wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
			if got := liveKey(t, e, nameOf("db"), "password"); got != pw {
				t.Errorf("password %q, want %q", got, pw)
			}
			if got := liveKey(t, e, nameOf("db"), "host"); got != "h2" {
				t.Errorf("host %q, want h2", got)
			}
		})
	}
}

// refusingBackPort refuses every move of AWSCURRENT (the move back after a
// rotation raced the write) with an answered AccessDeniedException.
type refusingBackPort struct {
	*rotatingPort
}

func (p refusingBackPort) MoveLabel(ctx context.Context, id, label, to, from string) error {
	if label == "AWSCURRENT" {
		return &engine.Error{Operation: "UpdateSecretVersionStage", Code: "AccessDeniedException", Fault: engine.FaultClient, RequestID: "req-refused-back"}
	}
	return p.rotatingPort.MoveLabel(ctx, id, label, to, from)
}

// A rotation finished between the read and the write and the move back
// was refused (sent, then resent once): the run ends verify:rotation-raced
// and its log line carries the refusal's code and request id, so the
// operator knows which call AWS refused and can quote the request.
func TestAWSOwned_RefusedMoveBackIsLoggedWithItsCode(t *testing.T) {
	e := newEnv(t)
	entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
	seedRotating(t, e, entry)
	p := refusingBackPort{&rotatingPort{Port: e.port, rotate: func(i int) {
		if i == 0 {
			rotateFully(t, e, nameOf("db"), "r1", false)
		}
	}}}
	res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), p)
	if res.Status != vocab.StatusVerificationFailed || len(res.Failures) != 1 || res.Failures[0].Class != diag.VerifyRotationRaced {
		t.Fatalf("status %s, failures %+v, want verification-failed with one verify:rotation-raced", res.Status, res.Failures)
	}
	var line string
	for _, l := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(l, "could not be made current again") {
			line = l
		}
	}
	for _, want := range []string{"AccessDeniedException", "req-refused-back"} {
		if !strings.Contains(line, want) {
			t.Errorf("the move-back failure's log line %q lacks %q", line, want)
		}
	}
}
