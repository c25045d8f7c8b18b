package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestProgress_LongPhasesLogAtASteadyInterval (issue 15): a phase that runs
// longer than the progress interval logs "progress" records with phase,
// done, total and throttled calls so far, on the engine's clock, and never a
// name; a short run logs none. Each DescribeSecret here "takes" 4 s of the
// injected clock, so observing 10 names takes 40 s.
func TestProgress_LongPhasesLogAtASteadyInterval(t *testing.T) {
	e := newEnv(t)
	var docs []doc
	for i := range 10 {
		docs = append(docs, doc{fmt.Sprintf("s%02d", i), `{}`})
	}
	st := state(docs...)

	wantResult(t, e.sync(t, 1, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 10})
	if strings.Contains(e.logs.String(), `"msg":"progress"`) {
		t.Fatalf("a run of milliseconds logged progress:\n%s", e.logs.String())
	}

	e2 := newEnv(t)
	clk := &readCountingClock{stepClock: stepClock{now: time.Unix(1_700_000_000, 0)}}
	// At concurrency 1 a unit's progress reads the clock before the next
	// describe moves it; otherwise a record's time is the next unit's and
	// the count below depends on the scheduler.
	var readsAtLastDesc, unread atomic.Int64
	slow := &hookPort{Port: e2.port, beforeDesc: func(n int, _ string) {
		if r := clk.reads.Load(); n > 1 && r == readsAtLastDesc.Load() {
			unread.Add(1)
		}
		clk.After(4 * time.Second)
		readsAtLastDesc.Store(clk.reads.Load())
	}}
	cfg := e2.cfg(engine.ModeSync, 1)
	cfg.Clock, cfg.VerificationTimeout = clk, time.Hour
	wantResult(t, e2.runPort(t, cfg, st, slow), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 10})

	if n := unread.Load(); n > 0 {
		t.Fatalf("%d describes started before the previous unit's progress read the clock", n)
	}

	perPhase := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(e2.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["msg"] != "progress" {
			continue
		}
		phase := rec[vocab.FieldPhase].(string)
		perPhase[phase]++
		done, total := rec[vocab.FieldDone].(float64), rec[vocab.FieldTotal].(float64)
		if total != 10 || done < 1 || done > total {
			t.Fatalf("progress done/total = %v/%v: %s", done, total, line)
		}
		if _, ok := rec[vocab.FieldThrottled]; !ok {
			t.Fatalf("progress without throttled: %s", line)
		}
		if _, ok := rec[vocab.FieldResource]; ok || strings.Contains(line, "app/") {
			t.Fatalf("progress names a secret: %s", line)
		}
		if phase == vocab.PhaseApply && rec[vocab.FieldOperation] != string(vocab.ActionCreate) {
			t.Fatalf("apply progress without its operation kind: %s", line)
		}
	}
	// 40 s per phase at one record per 10 s (the first after 10 s).
	for _, phase := range []string{vocab.PhasePlan, vocab.PhaseApply, vocab.PhaseVerify} {
		if n := perPhase[phase]; n < 3 || n > 4 {
			t.Fatalf("%s: %d progress records over 40 s, want 3 or 4:\n%s", phase, n, e2.logs.String())
		}
	}
}

// readCountingClock is a stepClock that counts reads of Now.
type readCountingClock struct {
	stepClock
	reads atomic.Int64
}

func (c *readCountingClock) Now() time.Time {
	c.reads.Add(1)
	return c.stepClock.Now()
}

// TestProgress_TotalGrowsByTheNamesOnlyDiscoveryFound: the plan phase's
// total is the desired names plus the names discovery listed that are not
// desired (grown once the listing is done), so a record taken after the
// listing counts them: 2 desired and 2 owned-but-undesired names are 4
// units, and the record after the third 4 s describe says 3 of 4.
func TestProgress_TotalGrowsByTheNamesOnlyDiscoveryFound(t *testing.T) {
	e := newEnv(t)
	e.seedOwned(t, "gone1", "x")
	e.seedOwned(t, "gone2", "y")
	e.seedOwned(t, "keep1", "1")
	e.seedOwned(t, "keep2", "2")
	clk := &stepClock{now: time.Unix(1_700_000_000, 0)}
	slow := &hookPort{Port: e.port, beforeDesc: func(int, string) { clk.After(4 * time.Second) }}
	cfg := e.cfg(engine.ModePlan, 1)
	cfg.Clock = clk
	res := e.runPort(t, cfg, state(doc{"keep1", "1"}, doc{"keep2", "2"}), slow)
	if res.Counts != (vocab.Counts{ScheduleDelete: 2, Unchanged: 2}) {
		t.Fatalf("counts = %+v, want 2 schedule-deletes and 2 unchanged", res.Counts)
	}
	records := 0
	for _, line := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["msg"] != "progress" || rec[vocab.FieldPhase] != vocab.PhasePlan {
			continue
		}
		records++
		if done, total := rec[vocab.FieldDone].(float64), rec[vocab.FieldTotal].(float64); total != 4 || done != 3 {
			t.Fatalf("plan progress done/total = %v/%v, want 3/4: %s", done, total, line)
		}
	}
	if records != 1 {
		t.Fatalf("%d plan progress records, want 1 (after 12 s of 16):\n%s", records, e.logs.String())
	}
}
