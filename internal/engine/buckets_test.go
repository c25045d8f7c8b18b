package engine

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestInBuckets_AtMostParallelBucketsAtOnce (--parallel-scopes, SPEC
// §17): with a bound of 2 over 5 buckets, the first two buckets in config
// order are worked on together (both wait at a gate the test opens only
// once both are in), never more than 2 calls run at once, and each
// bucket's scopes run one after another in the order given. Ordering facts
// only: no sleep, no timing.
func TestInBuckets_AtMostParallelBucketsAtOnce(t *testing.T) {
	buckets := []string{"a", "b", "a", "c", "d", "b", "e", "c", "a"}
	scopes := make([]ScopeRun, len(buckets))
	for i, b := range buckets {
		scopes[i].Bucket = b
	}
	const parallel = 2
	var active, most, calls atomic.Int32
	gate, in := make(chan struct{}), make(chan int, parallel)
	var mu sync.Mutex
	order := map[string][]int{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		inBuckets(scopes, parallel, func(i int) {
			n := active.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			mu.Lock()
			order[buckets[i]] = append(order[buckets[i]], i)
			mu.Unlock()
			if calls.Add(1) <= parallel {
				in <- i
				<-gate
			}
			active.Add(-1)
		})
	}()
	first := []int{<-in, <-in}
	slices.Sort(first)
	if !slices.Equal(first, []int{0, 1}) {
		t.Errorf("the first calls were scopes %v, want 0 and 1 (the first scopes of buckets a and b)", first)
	}
	if got := active.Load(); got != parallel {
		t.Errorf("%d calls at once while the first two wait, want %d", got, parallel)
	}
	close(gate)
	<-done
	if got := most.Load(); got > parallel {
		t.Errorf("%d calls at once, want at most %d", got, parallel)
	}
	want := map[string][]int{"a": {0, 2, 8}, "b": {1, 5}, "c": {3, 7}, "d": {4}, "e": {6}}
	for b, w := range want {
		if !slices.Equal(order[b], w) {
			t.Errorf("bucket %s ran scopes %v, want %v in order", b, order[b], w)
		}
	}
}

// TestInBuckets_NoBoundRunsEveryBucketAtOnce: parallel 0 is no bound:
// every bucket's first scope is in before any returns.
func TestInBuckets_NoBoundRunsEveryBucketAtOnce(t *testing.T) {
	scopes := []ScopeRun{{Bucket: "a"}, {Bucket: "b"}, {Bucket: "c"}}
	gate, in := make(chan struct{}), make(chan int, len(scopes))
	done := make(chan struct{})
	go func() {
		defer close(done)
		inBuckets(scopes, 0, func(i int) { in <- i; <-gate })
	}()
	for range scopes {
		<-in
	}
	close(gate)
	<-done
}
