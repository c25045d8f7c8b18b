package harness

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Parameter Store rows (SPEC §16). The quotas are the ones the
// emulator enforces (emulator.QuotaRate: AWS's documented default
// throughput, PutParameter 3/s and 40/s shared by GetParameter,
// GetParameters and GetParametersByPath; DescribeParameters 10/s, which
// AWS does not document and the emulator marks unverified); the tool's
// pace ceilings equal them (pace.ParameterStoreLimits, checked against
// the emulator by internal/awsps TestPaceCeilingsAreTheEmulatorsQuotas).
const (
	// PSDescribePage is DescribeParameters' largest page (SSM API
	// reference, MaxResults 50).
	PSDescribePage = 50
	// PSGetBatch is the most names one GetParameters call takes.
	PSGetBatch = 10
)

// The Parameter Store scenarios: a no-op sync (every parameter current)
// and the first sync creating every parameter of an empty prefix.
const (
	PSNoopSync Kind = "no-op sync, Parameter Store"
	PSCreate   Kind = "first sync (create), Parameter Store"
)

// ParameterStore reports whether k is a Parameter Store scenario.
func (k Kind) ParameterStore() bool { return k == PSNoopSync || k == PSCreate }

// psRate is the quota of op's family in calls per second.
func psRate(op string) float64 { return emulator.QuotaRate(op) }

// steady is the least time k calls of one family take at rate/s when the
// client paces them at that rate from the first call, the last answered
// L after it is sent: (k − 1)/rate + L (0 for no call). AWS documents
// Parameter Store's throughput as a rate, no burst; the emulator's bucket
// of one second's worth is its own assumption, so the bound does not
// count on it (docs/benchmarks.md, "Parameter Store rows").
func steady(k int, rate float64, L time.Duration) time.Duration {
	if k <= 0 {
		return 0
	}
	return time.Duration(float64(k-1)/rate*float64(time.Second)) + L
}

// PSPages is how many DescribeParameters pages one listing of n
// parameters takes: max(1, ⌈n/50⌉) (a page examines up to 50 parameters
// under the path, whatever the filters).
func PSPages(n int) int { return max(1, ceilDiv(n, PSDescribePage)) }

// PSObserve is the lower bound of the first observation of a run over n
// owned parameters (the prefix holds only them) with c calls in flight:
// the scope's listing and the orphan check's listing of every managed
// parameter (DescribeParameters cannot filter on "not this scope"),
// 2·P pages one after another at most, under the DescribeParameters
// quota; G = ⌈n/10⌉ GetParameters under theirs; both families run at once:
//
//	max(2·P·L, steady(2·P, Qd), ⌈G/c⌉·L, steady(G, Qg))
//
// listings is 2 for the first observation of a run, 1 for a verification.
func (m Model) PSObserve(n, c, listings int) time.Duration {
	L := m.Latency
	p := listings * PSPages(n)
	g := ceilDiv(n, PSGetBatch)
	return max(time.Duration(p)*L, steady(p, psRate("DescribeParameters"), L),
		time.Duration(ceilDiv(g, c))*L, steady(g, psRate("GetParameters"), L))
}

// PSWrites is the lower bound of k creates, each preceded by its
// precondition DescribeParameters: max(⌈k/c⌉·2·L, steady(k, Qp)).
func (m Model) PSWrites(k, c int) time.Duration {
	return max(time.Duration(ceilDiv(k, c)*2)*m.Latency, steady(k, psRate("PutParameter"), m.Latency))
}

// psBound is LowerBound for the Parameter Store kinds.
func (m Model) psBound(s Scenario) (time.Duration, string) {
	n, c := s.N, s.Concurrency
	switch s.Kind {
	case PSNoopSync:
		return m.PSObserve(n, c, 2), "obs₂(N)"
	case PSCreate:
		// The first observation lists an empty prefix (three one-page
		// listings: the scope's, the managed ones', every name's); the
		// verification lists the scope once and reads every value.
		return 3*m.Latency + m.PSWrites(n, c) + m.PSObserve(n, c, 1), "3·L + put(N) + obs₁(N)"
	}
	panic(fmt.Sprintf("harness: %q is not a Parameter Store scenario", s.Kind))
}

// psExpected is ExpectedCalls for the Parameter Store kinds: the listing
// pages, ⌈N/10⌉ GetParameters, and for a first sync one precondition
// DescribeParameters and one PutParameter per parameter; no
// ListTagsForResource (the listing's tag filters tell the scope, SPEC §16).
func psExpected(s Scenario) Calls {
	n := s.N
	switch s.Kind {
	case PSNoopSync:
		return Calls{"DescribeParameters": int64(2 * PSPages(n)), "GetParameters": int64(ceilDiv(n, PSGetBatch))}
	case PSCreate:
		return Calls{"DescribeParameters": int64(3 + n + PSPages(n)), "PutParameter": int64(n), "GetParameters": int64(ceilDiv(n, PSGetBatch))}
	}
	panic(fmt.Sprintf("harness: %q is not a Parameter Store scenario", s.Kind))
}

// PerParameter formats calls per desired parameter by operation, e.g.
// "DescribeParameters 0.040, GetParameters 0.100 (0.140 in all)".
func PerParameter(c Calls, n int) string {
	if n <= 0 {
		return ""
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(c)) {
		parts = append(parts, fmt.Sprintf("%s %.3f", op, float64(c[op])/float64(n)))
	}
	return fmt.Sprintf("%s (%.3f in all)", strings.Join(parts, ", "), float64(c.Total())/float64(n))
}

// NewSSMClient is NewClient's Systems Manager counterpart.
func NewSSMClient(url string) *ssm.Client {
	return ssm.New(ssm.Options{
		Region:       benchRegion,
		Credentials:  benchCredentials,
		BaseEndpoint: aws.String(url),
		HTTPClient:   seedHTTPClient(),
	})
}

// SeedParameters creates one owned SecureString parameter per document of
// c with exactly what the CLI's create writes (internal/awsps Create): the
// parameter name, the canonical value, the three reserved tags of c's
// scope (whose Target must be parameter-store), AWS's managed key and the
// standard tier. Run it with the emulator's faults off.
func SeedParameters(ctx context.Context, c *ssm.Client, corpus Corpus) error {
	if corpus.Scope.Target != model.TargetParameterStore {
		return fmt.Errorf("seed: the corpus's scope target is %q, not parameter-store", corpus.Scope.Target)
	}
	return parallel(ctx, len(corpus.Docs), func(ctx context.Context, i int) error {
		d := corpus.Docs[i]
		tags := corpus.Tags(d)
		var tt []types.Tag
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			tt = append(tt, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
		}
		_, err := c.PutParameter(ctx, &ssm.PutParameterInput{
			Name: aws.String(model.ParameterName(d.Name)), Value: aws.String(string(d.Value)), Type: types.ParameterTypeSecureString,
			KeyId: aws.String("alias/aws/ssm"), Overwrite: aws.Bool(false), Tags: tt, Tier: types.ParameterTierStandard,
		})
		if err != nil {
			return fmt.Errorf("seed PutParameter %d: %w", i, err)
		}
		return nil
	})
}

// psLimit is the ratio to its bound a Parameter Store row must stay within
// (docs/benchmarks.md, "Parameter Store rows").
const psLimit = 1.3

// judgePS is one verdict per Parameter Store row: within 1.3× of its
// bound, exit 0, converged, and for a no-op no write.
func judgePS(rows []*Row) []Verdict {
	var out []Verdict
	for _, r := range rows {
		v := Verdict{Target: fmt.Sprintf("%s, N = %d: within %.1f× of its bound, exit 0", r.Scenario.Kind, r.Scenario.N, psLimit)}
		if r.Skipped == "" {
			ratio := r.Ratio()
			v.Known = true
			v.Pass = ratio <= psLimit && len(r.Problems) == 0
			v.Detail = fmt.Sprintf("%s / %s = %.2f; calls per parameter: %s", FormatDuration(r.Wall), FormatDuration(r.Bound), ratio,
				PerParameter(r.Delta.Sent(), r.Scenario.N))
			if len(r.Problems) > 0 {
				v.Detail += "; " + strings.Join(r.Problems, "; ")
			}
			if math.IsNaN(ratio) {
				v.Pass = false
			}
		}
		out = append(out, v)
	}
	return out
}
