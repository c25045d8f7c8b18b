package emulator

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"time"
)

// Quotas is the quota part of the fault configuration (the fields of the
// same names in Faults), served alone by GET and PUT /_emulator/quotas so a
// test can change the quotas while a client is running: setting it keeps
// the fault generators, the script counters and the tokens already in the
// buckets (capped at the new burst), where PUT /_emulator/faults restarts
// all of them.
type Quotas struct {
	// Quotas turns the token buckets on (see Faults.Quotas).
	Quotas bool `json:"quotas"`
	// QuotaScale multiplies every family's rate and burst (0 means 1).
	QuotaScale float64 `json:"quota_scale"`
	// QuotaScales sets the scale of single operation families, keyed by an
	// operation of the family ("DescribeSecret" scales the bucket that
	// DescribeSecret shares with GetSecretValue); a family named here uses
	// its own scale instead of QuotaScale. Values are > 0; two operations of
	// one family must not disagree. It lets a test reduce one quota alone
	// (a no-op run with only the DescribeSecret quota reduced).
	QuotaScales map[string]float64 `json:"quota_scales,omitempty"`
}

// quotas returns the quota fields of f.
func (f Faults) quotas() Quotas {
	return Quotas{Quotas: f.Quotas, QuotaScale: f.QuotaScale, QuotaScales: maps.Clone(f.QuotaScales)}
}

// validateQuotas reports the first invalid quota setting, in words fit for
// a 400.
func validateQuotas(q Quotas) error {
	if !(q.QuotaScale >= 0) || math.IsInf(q.QuotaScale, 0) {
		return fmt.Errorf("quota_scale must be a finite number >= 0 (0 means 1)")
	}
	byFamily := map[string]string{} // family → first operation named
	ops := make([]string, 0, len(q.QuotaScales))
	for op := range q.QuotaScales {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		s := q.QuotaScales[op]
		fam, ok := quotaFamilies[op]
		if !ok {
			return fmt.Errorf("quota_scales: %q is not an operation with a request quota", op)
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("quota_scales[%q] must be a finite number > 0", op)
		}
		if other, ok := byFamily[fam.Family]; ok && q.QuotaScales[other] != s {
			return fmt.Errorf("quota_scales: %q and %q share the quota %s and must have one scale", other, op, fam.Family)
		}
		byFamily[fam.Family] = op
	}
	return nil
}

// familyScale is the scale of the quota family fam under f.
func (f *Faults) familyScale(fam string) float64 {
	for op, s := range f.QuotaScales {
		if quotaFamilies[op].Family == fam {
			return s
		}
	}
	if f.QuotaScale == 0 {
		return 1
	}
	return f.QuotaScale
}

// familyRate is the requests per second of family fam under f.
func (f *Faults) familyRate(fam string) float64 {
	for _, q := range quotaFamilies {
		if q.Family == fam {
			return q.Rate * f.familyScale(fam)
		}
	}
	return 0
}

// bucketFor returns partition p's token bucket of op's family (created
// full on first use), or nil when op has no quota. Every (account, Region)
// has its own quotas, as in AWS. e.mu is held.
func (e *Emulator) bucketFor(p *part, op string, now time.Time) *bucket {
	q, ok := quotaFamilies[op]
	if !ok {
		return nil
	}
	b := p.buckets[q.Family]
	if b == nil {
		rate := q.Rate * e.faults.familyScale(q.Family)
		burst := math.Max(1, rate) // one second's worth [unverified]
		b = &bucket{rate: rate, burst: burst, tokens: burst, last: now}
		p.buckets[q.Family] = b
	}
	return b
}

// SetQuotas replaces the quota settings only (see Quotas). Buckets already
// in use keep their tokens, refilled at the old rate up to now and then
// capped at the new burst, so a change never hands out a free burst;
// turning quotas off drops the buckets.
func (e *Emulator) SetQuotas(q Quotas) error {
	if err := validateQuotas(q); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.now()
	e.faults.Quotas, e.faults.QuotaScale, e.faults.QuotaScales = q.Quotas, q.QuotaScale, maps.Clone(q.QuotaScales)
	for _, p := range e.partOrder {
		if !q.Quotas {
			p.buckets = map[string]*bucket{}
			continue
		}
		for fam, b := range p.buckets {
			b.refill(now)
			b.rate = e.faults.familyRate(fam)
			b.burst = math.Max(1, b.rate)
			b.tokens = math.Min(b.tokens, b.burst)
		}
	}
	return nil
}

// Quotas returns the current quota settings.
func (e *Emulator) Quotas() Quotas {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.faults.quotas()
}

// QuotaRate is AWS's request quota of op's family that the emulator
// enforces with quotas on, in requests per second at scale 1 (0 when op
// has none). The benchmark's bounds read it, so they assume the rates the
// emulator enforces and no other copy of them (bench/harness).
func QuotaRate(op string) float64 { return quotaFamilies[op].Rate }
