package engine

import (
	"sync"
	"sync/atomic"
)

// each runs fn(i) for i in [0, n) with at most limit calls in flight. When
// fn returns false no new call starts; calls already in flight finish
// (a mutation in flight is never abandoned). each returns when all started
// calls have returned.
func each(n, limit int, fn func(i int) bool) {
	if limit < 1 {
		limit = 1
	}
	var (
		wg      sync.WaitGroup
		stopped atomic.Bool
		sem     = make(chan struct{}, limit)
	)
	for i := range n {
		sem <- struct{}{}
		if stopped.Load() {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if !fn(i) {
				stopped.Store(true)
			}
		}()
	}
	wg.Wait()
}

// workers runs functions on goroutines it keeps for the next function: a
// function goes to a goroutine already waiting for one, or to a new
// goroutine when none waits, so there are never more goroutines than
// functions running at once. A goroutine's stack grows once to what its
// functions need (the SDK's middleware chain and JSON decoder: tens of
// KiB), not once per function: with a new goroutine per describe, stack
// copies were 5 % of a no-op run's CPU at 10,000 secrets
// (docs/benchmarks.md, the profile of the CPU per secret). stop lets the goroutines end
// (a running one after its function); nothing is handed in after it.
type workers struct{ work chan func() }

func newWorkers() *workers { return &workers{work: make(chan func())} }

// run starts f on a kept goroutine or a new one; it never waits for f.
func (w *workers) run(f func()) {
	select {
	case w.work <- f:
	default:
		go func() {
			f()
			for f := range w.work {
				f()
			}
		}()
	}
}

// stop ends the goroutines waiting for work.
func (w *workers) stop() { close(w.work) }
