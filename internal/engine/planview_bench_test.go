package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// BenchmarkNoopPlanView measures, in one run, what issue 13 adds to a no-op
// plan of N = 10,000 owned secrets on the wired path: "plan" is engine.Run
// in plan mode (its Result.Plan included) against the emulator with no
// added latency (the cheapest, so the least favourable, baseline); "view"
// is what the CLI then does with Result.Plan: planview.Build, the plan
// file's encoding and the text rendering. A no-op plan computes no
// key-level diff. The ratio view/plan is the overhead (target < 5 %;
// docs/benchmarks.md).
func BenchmarkNoopPlanView(b *testing.B) {
	const n = 10000
	srv := emulatortest.Start(b)
	c := srv.Client(b)
	port := newAdapter(c, pace.Limits{})
	var docs []doc
	for i := range n {
		docs = append(docs, doc{fmt.Sprintf("s%05d", i), fmt.Sprintf(`{"db":{"i":%d,"user":"u"}}`, i)})
	}
	st := state(docs...)
	cfg := engine.Config{Mode: engine.ModeSync, Engine: config.Engine{RecoveryWindowDays: 7, Concurrency: 28, VerificationTimeout: time.Minute}}
	if r := engine.Run(context.Background(), cfg, model.Arrived(st), port, nil); r.Status != vocab.StatusConverged {
		b.Fatalf("seeding: %+v", r)
	}
	cfg.Mode = engine.ModePlan
	var last engine.Result
	b.Run(fmt.Sprintf("N=%d/plan", n), func(b *testing.B) {
		for b.Loop() {
			last = engine.Run(context.Background(), cfg, model.Arrived(st), port, nil)
			if last.Status != vocab.StatusConverged || len(last.Plan) != n {
				b.Fatalf("no-op plan: %+v", last.Counts)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/plan")
	})
	b.Run(fmt.Sprintf("N=%d/view", n), func(b *testing.B) {
		for b.Loop() {
			v := planview.Build(planview.Input{GitRevision: st.Commit, Scopes: []planview.ScopeInput{{Name: model.DefaultScopeName,
				Status: last.Status, Verification: vocab.VerificationNotRun, Operations: last.Plan}}}, model.Redaction{})
			if _, err := planview.Marshal(v); err != nil {
				b.Fatal(err)
			}
			_ = planview.Text(v)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/plan")
	})
}
