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
