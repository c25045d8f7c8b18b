package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// BenchmarkNoopSync measures a converged sync of N owned secrets with a
// fixed per-call latency at several concurrencies, and reports the AWS
// calls per run (list pages + N describes + N/20 batch reads, no
// verification pass). Figures: docs/reconciliation.md.
func BenchmarkNoopSync(b *testing.B) {
	const n, latency = 1000, 20
	srv := emulatortest.Start(b)
	c := srv.Client(b)
	e := &env{srv: srv, client: c, port: newAdapter(c), logs: &syncBuffer{}}
	var docs []doc
	for i := range n {
		d := doc{fmt.Sprintf("s%04d", i), fmt.Sprintf(`{"i":%d}`, i)}
		docs = append(docs, d)
	}
	st := state(docs...)
	setup := engine.Config{Mode: engine.ModeSync, Engine: config.Engine{RecoveryWindowDays: 7, Concurrency: 16, VerificationTimeout: time.Minute}}
	if r := engine.Run(context.Background(), setup, model.Arrived(st), e.port, nil); r.Status != vocab.StatusConverged {
		b.Fatalf("seeding: %+v", r)
	}
	srv.SetFaults(b, emulator.Faults{LatencyMS: latency})
	for _, conc := range []int{1, 8, 16, 32, 64} {
		b.Run(fmt.Sprintf("N=%d/latency=%dms/concurrency=%d", n, latency, conc), func(b *testing.B) {
			cfg := setup
			cfg.Concurrency = conc
			before := srv.Stats(b).Calls
			for b.Loop() {
				if r := engine.Run(context.Background(), cfg, model.Arrived(st), e.port, nil); r.Status != vocab.StatusConverged || r.Counts.Unchanged != n {
					b.Fatalf("no-op sync: %+v", r)
				}
			}
			after := srv.Stats(b).Calls
			var calls int64
			for op, v := range after {
				calls += v - before[op]
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
		})
	}
}
