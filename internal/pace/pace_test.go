package pace

import (
	"context"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
)

// stepClock is a fake clock: After moves time forward by d at once, so a
// single goroutine can drive the controller without sleeping.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }
func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func newClock() *stepClock { return &stepClock{now: time.Unix(1_700_000_000, 0)} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestTurnsAreSpacedAtTheCeiling(t *testing.T) {
	clk := newClock()
	c := New(clk, Limits{Writes: 4})
	start := clk.Now()
	for range 9 {
		if _, err := c.Wait(context.Background(), Writes); err != nil {
			t.Fatal(err)
		}
	}
	// A burst of one, then one turn every 250 ms.
	if got := clk.Now().Sub(start); got != 2*time.Second {
		t.Fatalf("9 writes at 4/s took %v, want 2s", got)
	}
	if s := c.Stats(); s.Waited != 2*time.Second || s.Throttled != 0 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestUnpacedFamilyNeverWaits(t *testing.T) {
	clk := newClock()
	c := New(clk, DefaultLimits())
	start := clk.Now()
	for range 1000 {
		tu, _ := c.Wait(context.Background(), Reads)
		c.Succeeded(tu)
	}
	if clk.Now() != start || !math.IsInf(c.Limit(Reads), 1) {
		t.Fatalf("reads waited %v; limit %v", clk.Now().Sub(start), c.Limit(Reads))
	}
}

func TestThrottleCutsOncePerEpoch(t *testing.T) {
	clk := newClock()
	c := New(clk, Limits{Writes: 40})
	a, _ := c.Wait(context.Background(), Writes)
	b, _ := c.Wait(context.Background(), Writes)
	c.Throttled(a)
	c.Throttled(b) // granted before the cut: no second cut
	if got := c.Limit(Writes); !near(got, 30) {
		t.Fatalf("limit after two throttles of one epoch = %v, want 40 × 0.75 = 30", got)
	}
	d, _ := c.Wait(context.Background(), Writes)
	c.Throttled(d) // granted after the cut: cuts again
	if got := c.Limit(Writes); !near(got, 22.5) {
		t.Fatalf("limit = %v, want 22.5", got)
	}
	if c.Stats().Throttled != 3 {
		t.Fatalf("throttled = %d, want 3", c.Stats().Throttled)
	}
}

// TestCutFollowsTheAcceptedRate: the account's other clients leave us about
// 10 calls/s; a cut from the ceiling goes to 0.75 × that, not 0.75 × 48.
func TestCutFollowsTheAcceptedRate(t *testing.T) {
	clk := newClock()
	c := New(clk, Limits{Writes: 48})
	for range 20 { // 10 answered calls per second for 2 s
		tu, _ := c.Wait(context.Background(), Writes)
		c.Succeeded(tu)
		clk.now = clk.now.Add(100 * time.Millisecond)
	}
	tu, _ := c.Wait(context.Background(), Writes)
	c.Throttled(tu)
	if got := c.Limit(Writes); got < 6.5 || got > 8 {
		t.Fatalf("limit after the cut = %v, want about 7.5", got)
	}
}

func TestUnpacedFamilyCutsFromTheDocumentedQuota(t *testing.T) {
	c := New(newClock(), Limits{})
	tu, _ := c.Wait(context.Background(), Lists)
	c.Throttled(tu)
	if got := c.Limit(Lists); !near(got, 75) {
		t.Fatalf("limit = %v, want 0.75 × 100", got)
	}
}

func TestRepeatedThrottlesStopAtTheFloor(t *testing.T) {
	c := New(newClock(), Limits{Writes: 48})
	for range 100 {
		tu, _ := c.Wait(context.Background(), Writes)
		c.Throttled(tu)
	}
	if got := c.Limit(Writes); got != MinLimit {
		t.Fatalf("limit = %v, want the floor %v", got, MinLimit)
	}
}

func TestRecoveryIsAdditiveAndCappedAtTheCeiling(t *testing.T) {
	clk := newClock()
	c := New(clk, Limits{Writes: 10})
	tu, _ := c.Wait(context.Background(), Writes)
	c.Throttled(tu) // 7.5
	// A call that did not wait (demand below the limit) does not raise it.
	clk.now = clk.now.Add(time.Second)
	tu, _ = c.Wait(context.Background(), Writes)
	c.Succeeded(tu)
	if got := c.Limit(Writes); !near(got, 7.5) {
		t.Fatalf("limit = %v after an unhurried success, want 7.5", got)
	}
	for range 10 {
		tu, _ = c.Wait(context.Background(), Writes)
		c.Succeeded(tu)
	}
	if got := c.Limit(Writes); !near(got, 8.5) {
		t.Fatalf("limit = %v after 10 waited successes, want 8.5", got)
	}
	for range 100 {
		tu, _ = c.Wait(context.Background(), Writes)
		c.Succeeded(tu)
	}
	if got := c.Limit(Writes); got != 10 {
		t.Fatalf("limit = %v, want the ceiling 10", got)
	}
}

func TestWaitEndsWithTheContext(t *testing.T) {
	clk := &blockingClock{stepClock: newClock()}
	c := New(clk, Limits{Writes: 1})
	if _, err := c.Wait(context.Background(), Writes); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Wait(ctx, Writes); err != context.Canceled {
		t.Fatalf("Wait on a cancelled context = %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	clk.onAfter = cancel // the run ends while the turn is awaited
	if _, err := c.Wait(ctx, Writes); err != context.Canceled {
		t.Fatalf("Wait cancelled meanwhile = %v", err)
	}
	// A deadline far beyond the wait is not an error.
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(time.Hour))
	defer cancel()
	clk.onAfter, clk.fire = nil, true
	if _, err := c.Wait(ctx, Writes); err != nil {
		t.Fatalf("Wait under a deadline = %v", err)
	}
}

// blockingClock's After never fires unless fire is set; onAfter runs first.
type blockingClock struct {
	*stepClock
	onAfter func()
	fire    bool
}

func (c *blockingClock) After(d time.Duration) <-chan time.Time {
	if c.onAfter != nil {
		c.onAfter()
	}
	if c.fire {
		return c.stepClock.After(d)
	}
	return make(chan time.Time)
}

// TestAgainstASharedQuota drives the controller against a model of AWS's
// quota (a token bucket of Q calls/s, burst Q, refilling on the fake clock)
// with a demand that always exceeds it: 2,000 accepted calls at Q = 10
// (20 % of the write quota) must take at most 1.15 × the bound
// (2,000 − 10)/10 s, and few calls may be throttled.
func TestAgainstASharedQuota(t *testing.T) {
	for _, q := range []float64{2.5, 5, 10, 50} {
		clk := newClock()
		c := New(clk, DefaultLimits())
		tokens, last := q, clk.Now()
		accepted, throttled := 0, 0
		start := clk.Now()
		for accepted < 2000 {
			tu, _ := c.Wait(context.Background(), Writes)
			now := clk.Now()
			tokens = min(q, tokens+now.Sub(last).Seconds()*q)
			last = now
			if tokens >= 1 {
				tokens--
				accepted++
				c.Succeeded(tu)
			} else {
				throttled++
				c.Throttled(tu)
			}
		}
		bound := (2000 - min(q, DefaultWrites)) / min(q, DefaultWrites)
		got := clk.Now().Sub(start).Seconds()
		t.Logf("quota %v/s: %.1f s for a bound of %.1f s (%.2f×), %d throttled", q, got, bound, got/bound, throttled)
		if got > 1.15*bound {
			t.Errorf("quota %v/s: %.1f s, more than 1.15 × the bound %.1f s", q, got, bound)
		}
		if throttled > 200 {
			t.Errorf("quota %v/s: %d throttled calls for 2,000 accepted", q, throttled)
		}
	}
}

// TestACutWakesWaitersToQueueAgain: a caller waiting for a turn at the old
// limit is woken by a cut and queues on the new limiter (the turns queued
// at the refused rate are dropped, not served first).
func TestACutWakesWaitersToQueueAgain(t *testing.T) {
	clk := &manualClock{now: time.Unix(1_700_000_000, 0)}
	c := New(clk, Limits{Writes: 0.5})
	first, _ := c.Wait(context.Background(), Writes) // the burst: no wait
	got := make(chan Turn)
	go func() {
		tu, _ := c.Wait(context.Background(), Writes)
		got <- tu
	}()
	clk.waitTimers(1)  // queued for 2 s at 0.5/s
	c.Throttled(first) // cut to 0.375/s: the waiter queues again
	clk.waitTimers(2)
	clk.advance(3 * time.Second)
	tu := <-got
	c.Throttled(tu) // granted after the cut: it cuts again
	if c.Stats().Throttled != 2 || !near(c.Limit(Writes), 0.5*0.75*0.75) {
		t.Fatalf("stats %+v, limit %v", c.Stats(), c.Limit(Writes))
	}
}

// manualClock fires After channels only when the test advances it.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []manualTimer
	made   int
}

type manualTimer struct {
	at time.Time
	ch chan time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, manualTimer{c.now.Add(d), ch})
	c.made++
	return ch
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(c.now) {
			tm.ch <- c.now
		} else {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
}

// waitTimers yields until n After calls were made.
func (c *manualClock) waitTimers(n int) {
	for {
		c.mu.Lock()
		made := c.made
		c.mu.Unlock()
		if made >= n {
			return
		}
		runtime.Gosched()
	}
}

// TestStatsSubIsThePhaseDelta: the totals of a phase are the totals after
// it minus the totals before it, field by field.
func TestStatsSubIsThePhaseDelta(t *testing.T) {
	after := Stats{Throttled: 7, Waited: 5 * time.Second}
	before := Stats{Throttled: 2, Waited: 1500 * time.Millisecond}
	if got, want := after.Sub(before), (Stats{Throttled: 5, Waited: 3500 * time.Millisecond}); got != want {
		t.Fatalf("Sub = %+v, want %+v", got, want)
	}
}

// TestBurstIsAnEighthOfASecondButOneForWrites: after an idle second a
// non-write family admits an eighth of a second's worth of calls at once
// (80/s → 10) and then spaces them; writes admit one at a time.
func TestBurstIsAnEighthOfASecondButOneForWrites(t *testing.T) {
	clk := newClock()
	c := New(clk, Limits{Reads: 80, Writes: 80})
	clk.now = clk.now.Add(time.Second) // idle: the buckets fill
	start := clk.Now()
	for i := range 10 {
		if _, err := c.Wait(context.Background(), Reads); err != nil {
			t.Fatal(err)
		}
		if clk.Now() != start {
			t.Fatalf("read %d of the burst waited %v", i+1, clk.Now().Sub(start))
		}
	}
	if _, err := c.Wait(context.Background(), Reads); err != nil {
		t.Fatal(err)
	}
	if got := clk.Now().Sub(start); got != time.Second/80 {
		t.Fatalf("the 11th read waited %v, want one interval of 80/s (12.5ms)", got)
	}

	start = clk.Now()
	for range 2 {
		if _, err := c.Wait(context.Background(), Writes); err != nil {
			t.Fatal(err)
		}
	}
	if got := clk.Now().Sub(start); got != time.Second/80 {
		t.Fatalf("two writes after an idle second took %v, want one interval (burst of one)", got)
	}
}

// TestAClosedWindowKeepsItsRate: a window of exactly one second closes,
// and a cut half a second later still starts from that window's rate
// (10 calls/s), not from the calls spread over the longer span.
func TestAClosedWindowKeepsItsRate(t *testing.T) {
	clk := newClock()
	c := New(clk, Limits{Writes: 48})
	for i := range 11 { // answers at 0, 0.1, …, 1.0 s: the window opens at the first
		if i > 0 {
			clk.now = clk.now.Add(100 * time.Millisecond)
		}
		tu, _ := c.Wait(context.Background(), Writes)
		c.Succeeded(tu)
	}
	clk.now = clk.now.Add(500 * time.Millisecond)
	tu, _ := c.Wait(context.Background(), Writes)
	c.Throttled(tu)
	if got := c.Limit(Writes); !near(got, 7.5) {
		t.Fatalf("limit after the cut = %v, want 0.75 × 10 = 7.5", got)
	}
}

// TestASparseWindowIsCallsPerElapsedSecond: one answer two seconds after
// the first is an accepted rate of 0.5 calls/s, and the cut follows it.
func TestASparseWindowIsCallsPerElapsedSecond(t *testing.T) {
	clk := newClock()
	c := New(clk, Limits{Writes: 48})
	tu, _ := c.Wait(context.Background(), Writes)
	c.Succeeded(tu)
	clk.now = clk.now.Add(2 * time.Second)
	tu, _ = c.Wait(context.Background(), Writes)
	c.Succeeded(tu)
	tu, _ = c.Wait(context.Background(), Writes)
	c.Throttled(tu)
	if got := c.Limit(Writes); !near(got, 0.375) {
		t.Fatalf("limit after the cut = %v, want 0.75 × 0.5 = 0.375", got)
	}
}

// TestWaitingCountsCallersInsideWait: a caller blocked for its turn is
// counted while it waits and no longer once it leaves, whichever way it
// leaves (its turn came, a cut woke it, its context ended).
func TestWaitingCountsCallersInsideWait(t *testing.T) {
	clk := &manualClock{now: time.Unix(1_700_000_000, 0)}
	c := New(clk, Limits{Writes: 1})
	first, _ := c.Wait(context.Background(), Writes) // the burst
	// A waiter is counted before it asks the clock for its timer, so once
	// the clock has seen n timers the count is settled.
	waitFor := func(want int) {
		t.Helper()
		if n := c.waiting(Writes); n != want {
			t.Fatalf("waiting = %d, want %d", n, want)
		}
	}

	// Its turn comes.
	done := make(chan error)
	go func() { _, err := c.Wait(context.Background(), Writes); done <- err }()
	clk.waitTimers(1)
	waitFor(1)
	clk.advance(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := c.waiting(Writes); n != 0 {
		t.Fatalf("waiting after the turn came = %d, want 0", n)
	}

	// A cut wakes it; it queues again (counted once), then its context ends.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _, err := c.Wait(ctx, Writes); done <- err }()
	clk.waitTimers(2)
	waitFor(1)
	c.Throttled(first)
	clk.waitTimers(3)
	waitFor(1)
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	if n := c.waiting(Writes); n != 0 {
		t.Fatalf("waiting after the context ended = %d, want 0", n)
	}
}

// TestLimitsOfEachService: the target table's reference to its ceilings
// (model.Target.Service) finds Secrets Manager's and Parameter Store's,
// the factory's STS controller STS's (100 reads a second, nothing else
// paced); an unknown service gets the default ceilings.
func TestLimitsOfEachService(t *testing.T) {
	for service, want := range map[string]Limits{
		"secretsmanager": DefaultLimits(),
		"ssm":            ParameterStoreLimits(),
		"sts":            {Reads: 100},
		"s3":             DefaultLimits(),
	} {
		if got := LimitsOf(service); got != want {
			t.Errorf("LimitsOf(%q) = %+v, want %+v", service, got, want)
		}
	}
}
