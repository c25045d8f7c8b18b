package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// BenchmarkThrottledCreates is the A/B of issue 15: a first sync creating N
// secrets with the emulator's quotas at quota_scale (5 creates/s at 0.1),
// at the default concurrency, with throttling handled
//
//   - pace: by internal/pace (the SDK never retries a throttle; the engine
//     resends a throttled write after a new turn and a new precondition);
//   - sdk-adaptive: by the SDK's adaptive retry mode
//     (retry.NewAdaptiveMode: a client-side CUBIC rate limiter shared by
//     every call of the client, plus the standard retryer with attempts
//     raised to 1,000 and no retry budget, so it never gives up before the
//     operation timeout).
//
// Both keep the 48/s write ceiling. It reports the wall time, the throttled
// calls and all calls. Figures: docs/reconciliation.md ("Back-pressure").
// Run: go test -run '^$' -bench ThrottledCreates -benchtime 1x ./internal/engine
func BenchmarkThrottledCreates(b *testing.B) {
	const n, scale = 100, 0.1
	var docs []doc
	for i := range n {
		docs = append(docs, doc{fmt.Sprintf("s%03d", i), fmt.Sprintf(`{"i":%d}`, i)})
	}
	st := state(docs...)
	modes := []struct {
		name string
		port func(srv *emulatortest.Server) engine.Port
	}{
		{"pace", func(srv *emulatortest.Server) engine.Port {
			return awssm.New(srv.Client(b), awssm.Options{OperationTimeout: 30 * time.Second})
		}},
		{"sdk-adaptive", func(srv *emulatortest.Server) engine.Port {
			c := srv.Client(b, func(o *secretsmanager.Options) {
				o.Retryer = retry.NewAdaptiveMode(func(ao *retry.AdaptiveModeOptions) {
					ao.StandardOptions = append(ao.StandardOptions, func(so *retry.StandardOptions) {
						so.MaxAttempts = 1000
						so.RateLimiter = ratelimit.None
					})
				})
			})
			return awssm.New(c, awssm.Options{OperationTimeout: 30 * time.Second, SDKRetriesThrottles: true})
		}},
	}
	for _, m := range modes {
		b.Run(fmt.Sprintf("mode=%s/N=%d/quota_scale=%v", m.name, n, scale), func(b *testing.B) {
			for b.Loop() {
				srv := emulatortest.Start(b)
				srv.SetFaults(b, emulator.Faults{Seed: 1, Quotas: true, QuotaScale: scale})
				cfg := engine.Config{Mode: engine.ModeSync, Engine: config.Engine{RecoveryWindowDays: 7,
					Concurrency: config.DefaultConcurrency, VerificationTimeout: time.Minute}}
				start := time.Now()
				r := engine.Run(context.Background(), cfg, model.Arrived(st), m.port(srv), nil)
				b.ReportMetric(time.Since(start).Seconds(), "s/run")
				if r.Status != vocab.StatusConverged || r.Counts.Create != n {
					b.Fatalf("result %+v", r)
				}
				s := srv.Stats(b)
				var thr, calls int64
				for _, v := range s.Throttled {
					thr += v
				}
				for _, v := range s.Calls {
					calls += v
				}
				b.ReportMetric(float64(thr), "throttled/run")
				b.ReportMetric(float64(calls), "calls/run")
			}
		})
	}
}
