package engine_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestARNSuffixLikeNames: names ending in "-" and six characters look like
// partial ARNs to AWS; next to a secret named like their stem they must
// still converge and stay converged (SPEC §3.4).
func TestARNSuffixLikeNames(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "db", `{"v":0}`)
		st := state(doc{"db", `{"v":1}`}, doc{"db-config", `{"v":2}`}, doc{"db-backup", `{"v":3}`})
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2, Update: 1})
		for _, s := range st.Secrets {
			if got := current(e.secret(t, s.Name)); got != string(s.Value) {
				t.Fatalf("%s = %q", s.Name, got)
			}
		}
		before := e.calls(t)
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 3})
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%d mutating calls on a converged scope", n)
		}
		wantResult(t, e.sync(t, conc, state(doc{"db-config", `{"v":2}`})), vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{ScheduleDelete: 2, Unchanged: 1})
		if e.secret(t, nameOf("db-config")).DeletedDate != nil {
			t.Fatal("deleting app/db and app/db-backup must not touch app/db-config")
		}
	})
}

// TestARNSuffixNameWarning: each desired name that looks like an ARN
// suffix gets exactly one warning per run, labelled by its ordinal, never
// by its name unless ShowResourceNames (SPEC §3.4, §7.3).
func TestARNSuffixNameWarning(t *testing.T) {
	const msg = "ends like an ARN suffix"
	st := state(doc{"db", `{"v":1}`}, doc{"db-config", `{"v":2}`}, doc{"db-backup", `{"v":3}`})
	ordinal := map[string]string{}
	for _, s := range st.Secrets {
		ordinal[s.Name] = fmt.Sprintf("resource-%04d", s.Ordinal)
	}
	for _, mode := range []engine.Mode{engine.ModePlan, engine.ModeSync} {
		e := newEnv(t)
		e.run(t, e.cfg(mode, config.DefaultConcurrency), st)
		var warned []string
		for _, line := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
			if !strings.Contains(line, msg) {
				continue
			}
			var rec struct{ Level, Phase, Resource string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Level != "WARN" || rec.Phase != vocab.PhasePlan {
				t.Fatalf("warning record %s", line)
			}
			warned = append(warned, rec.Resource)
		}
		slices.Sort(warned)
		want := []string{ordinal[nameOf("db-backup")], ordinal[nameOf("db-config")]}
		slices.Sort(want)
		if !slices.Equal(warned, want) {
			t.Fatalf("mode %d: warnings for %v, want one each for %v", mode, warned, want)
		}
		if strings.Contains(e.logs.String(), "db-") {
			t.Fatalf("a name reached the logs without ShowResourceNames:\n%s", e.logs.String())
		}
	}
	e := newEnv(t)
	cfg := e.cfg(engine.ModePlan, 1)
	cfg.ShowResourceNames = true
	e.run(t, cfg, st)
	if n := strings.Count(e.logs.String(), msg+`; it will be addressed by full ARN once known","phase":"plan","resource":"app/db-config"`); n != 1 {
		t.Fatalf("with ShowResourceNames the warning names the secret; got %d records:\n%s", n, e.logs.String())
	}
}
