package planview

import (
	"fmt"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// BenchmarkNoopPlan10000 is what issue 13 adds to a no-op plan of N =
// 10,000 secrets: building the view, encoding the plan file and rendering
// text and Markdown (no key-level diff runs: nothing changed). Compare
// ms/plan with the no-op plan's wall time in docs/benchmarks.md (11.0 s at
// N = 10,000: 5 % is 550 ms).
func BenchmarkNoopPlan10000(b *testing.B) {
	for _, shown := range []bool{false, true} {
		b.Run(fmt.Sprintf("names=%v", shown), func(b *testing.B) {
			in := single(rev, vocab.StatusConverged, nil, nil)
			for i := range 10000 {
				in.Scopes[0].Operations = append(in.Scopes[0].Operations, Operation{Ordinal: i + 1, Name: fmt.Sprintf("prod/app/service-%05d", i),
					Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual})
			}
			for b.Loop() {
				v := Build(in, model.Redaction{ShowNames: shown})
				if _, err := Marshal(v); err != nil {
					b.Fatal(err)
				}
				_ = Text(v)
				_ = Markdown(v)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/plan")
		})
	}
}
