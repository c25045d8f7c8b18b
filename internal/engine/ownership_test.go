package engine_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestOwnershipOutsidePrefix: a secret outside --secret-prefix that carries
// our managed-by and scope tags (a copy, a rename, a hostile tag) is never
// described, planned or deleted: only names under prefix+"/" are ours
// (SPEC §9). Discovery drops it with one count-only warning.
func TestOwnershipOutsidePrefix(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		tags := testScope.Tags(pathOf("victim"))
		e.seed(t, "elsewhere/victim", aws.String(`{"v":0}`), nil, tags)
		e.seed(t, "app-victim", aws.String(`{"v":0}`), nil, tags) // shares the prefix's characters, not its namespace
		e.seedOwned(t, "stale", `{"v":0}`)

		var mu sync.Mutex
		var described []string
		hp := &hookPort{Port: e.port, beforeDesc: func(_ int, id string) {
			mu.Lock()
			described = append(described, id)
			mu.Unlock()
		}}
		st := state(doc{"db", `{"v":1}`})
		wantResult(t, e.runPort(t, e.cfg(engine.ModeSync, conc), st, hp), vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{Create: 1, ScheduleDelete: 1})
		wantResult(t, e.runPort(t, e.cfg(engine.ModeSync, conc), st, hp), vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{Unchanged: 2}) // app/stale stays scheduled

		for _, name := range []string{"elsewhere/victim", "app-victim"} {
			if d := e.secret(t, name).DeletedDate; d != nil {
				t.Fatalf("%s outside the prefix was scheduled for deletion", name)
			}
		}
		if e.secret(t, nameOf("stale")).DeletedDate == nil {
			t.Fatal("the stale secret under the prefix must still be scheduled for deletion")
		}
		if n := e.calls(t)["DeleteSecret"]; n != 1 {
			t.Fatalf("DeleteSecret calls = %d, want 1 (app/stale only)", n)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, id := range described {
			if strings.Contains(id, "victim") {
				t.Fatalf("described %q, a secret outside the prefix", id)
			}
		}
		logs := e.logs.String()
		if n := strings.Count(logs, "outside the secret prefix"); n != 2 { // once per run
			t.Fatalf("out-of-prefix warning logged %d times in two runs, want 2:\n%s", n, logs)
		}
		if strings.Contains(logs, "victim") {
			t.Fatalf("a name reached the logs without ShowResourceNames:\n%s", logs)
		}
		if !strings.Contains(logs, `"count":2`) {
			t.Fatalf("warning without its count:\n%s", logs)
		}
	})
}
