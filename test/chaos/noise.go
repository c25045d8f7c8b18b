package chaos

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// noiseFamilies are the quota families the other clients spend, one
// operation each, with AWS's rate (requests per second; the emulator's
// table, docs/emulator.md).
var noiseFamilies = []struct {
	op   string
	rate float64
}{
	{"CreateSecret", 50}, {"PutSecretValue", 50}, {"DeleteSecret", 50}, {"RestoreSecret", 50},
	{"BatchGetSecretValue", 100}, {"ListSecrets", 100}, {"DescribeSecret", 10000},
}

const (
	noiseTick = 50 * time.Millisecond
	// noiseCap bounds one family's requests per tick, so the fast
	// DescribeSecret quota does not turn the harness into a load test.
	noiseCap = 10
)

// Noise is the account's other clients during one run (quotas
// are shared by every client in the account and Region): they empty the
// buckets, then spend share of each family's quota at scale, with
// requests whose body is malformed.
// The emulator admits a call (counts it and takes its token) before it
// reads the body, so each request uses the quota like a real one and
// changes nothing (SerializationException).
type Noise struct {
	// Calls and Throttled count the other clients' requests and those the
	// quota refused.
	Calls, Throttled atomic.Int64
	// scale is the quota scale whose share they spend (math.Float64bits):
	// SetScale follows a quota changed while the CLI runs.
	scale atomic.Uint64
	share float64
	stop  chan struct{}
	done  sync.WaitGroup
}

// SetScale tells the other clients the account's quotas are now at scale:
// they keep spending their share of the quota as it is, not as it was. (A
// quota cut to a sixth while they kept their old rate left the CLI no
// token at all, and the final sync of a scenario ran into its timeout.)
func (n *Noise) SetScale(scale float64) { n.scale.Store(math.Float64bits(scale)) }

// rates are the requests per second of each noise family now.
func (n *Noise) rates() []float64 {
	scale := math.Float64frombits(n.scale.Load())
	out := make([]float64, len(noiseFamilies))
	for i, f := range noiseFamilies {
		out[i] = f.rate * scale * n.share
	}
	return out
}

// drainCap bounds the requests that empty one family's bucket (the
// DescribeSecret family's burst is 10,000 at full scale).
const drainCap = 200

// StartNoise starts the other clients against the emulator (not through
// the proxy: they are not the CLI): first they spend every bucket's burst
// (at most drainCap requests a family), as a busy account leaves it, then
// share of each quota while the CLI runs. Stop ends them.
func (e *Emu) StartNoise(scale, share float64) *Noise {
	n := &Noise{stop: make(chan struct{}), share: share}
	n.SetScale(scale)
	var drain sync.WaitGroup
	for _, f := range noiseFamilies {
		burst := min(int(math.Ceil(max(1, f.rate*scale))), drainCap)
		drain.Add(1)
		go func() {
			defer drain.Done()
			for range burst {
				n.Calls.Add(1)
				if e.malformed(f.op) {
					n.Throttled.Add(1)
				}
			}
		}()
	}
	drain.Wait()
	n.done.Add(1)
	go func() {
		defer n.done.Done()
		credit := make([]float64, len(noiseFamilies))
		t := time.NewTicker(noiseTick)
		defer t.Stop()
		for {
			select {
			case <-n.stop:
				return
			case <-t.C:
			}
			rates := n.rates()
			for i, f := range noiseFamilies {
				for range due(&credit[i], rates[i]) {
					n.Calls.Add(1)
					if e.malformed(f.op) {
						n.Throttled.Add(1)
					}
				}
			}
		}
	}()
	return n
}

// due adds one tick's worth of rate (requests per second) to *credit and
// returns the whole requests to send now, at most noiseCap; the credit
// left is kept below noiseCap, so a slow tick never bursts later.
func due(credit *float64, rate float64) int {
	*credit += rate * noiseTick.Seconds()
	n := min(int(*credit), noiseCap)
	*credit = min(*credit-float64(n), noiseCap)
	return n
}

// Stop ends the other clients and waits for their last request.
func (n *Noise) Stop() {
	close(n.stop)
	n.done.Wait()
}

// malformed sends op with a body that is not JSON and reports whether the
// quota throttled it.
func (e *Emu) malformed(op string) bool {
	var ae *APIError
	return errors.As(e.post("secretsmanager."+op, []byte("{"), nil), &ae) && ae.Type == "ThrottlingException"
}
