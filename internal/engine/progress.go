package engine

import (
	"log/slog"
	"sync"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// progress logs one info record "progress" per ProgressInterval while a
// phase runs, so a long phase never looks hung: phase, the operation kind in apply, units done and
// expected, and the calls throttled since the phase began; never a name.
// It is driven by the units themselves on the engine's clock (no timer of
// its own), so a test advances a fake clock and a phase shorter than the
// interval logs nothing.
type progress struct {
	r           *runner
	phase, kind string
	base        pace.Stats

	mu          sync.Mutex
	done, total int
	next        time.Time
}

func (r *runner) startProgress(phase, kind string, total int) *progress {
	return &progress{r: r, phase: phase, kind: kind, total: total, base: r.pacer.Stats(),
		next: r.clock.Now().Add(r.progressInterval)}
}

// grow adds n units to the expected total (names discovery found).
func (p *progress) grow(n int) {
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

// add counts n units done and logs a record when the interval has passed.
func (p *progress) add(n int) {
	now := p.r.clock.Now()
	p.mu.Lock()
	p.done += n
	if now.Before(p.next) {
		p.mu.Unlock()
		return
	}
	p.next = now.Add(p.r.progressInterval)
	done, total := p.done, max(p.total, p.done)
	p.mu.Unlock()
	attrs := []any{slog.String(vocab.FieldPhase, p.phase)}
	if p.kind != "" {
		attrs = append(attrs, slog.String(vocab.FieldOperation, p.kind))
	}
	attrs = append(attrs, slog.Int(vocab.FieldDone, done), slog.Int(vocab.FieldTotal, total),
		slog.Int64(vocab.FieldThrottled, p.r.pacer.Stats().Sub(p.base).Throttled))
	p.r.log.Info("progress", attrs...)
}
