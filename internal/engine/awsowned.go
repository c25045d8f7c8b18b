package engine

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Keys owned by AWS (aws-owned, SPEC §13) at the engine's edge: the
// checks before any AWS call and before any write, and the values a create
// generates. The merge of live values is the planner's (plan.classifyOwned).

// awsOwnedInvalid refuses the run before any AWS call when an aws-owned
// entry does not fit the outline (model.ValidateAWSOwnedState: it matches
// no document, two entries match one, a whole-value document lists a key
// other than ""): config:aws-owned, status invalid, exit 3.
func (r *runner) awsOwnedInvalid() bool {
	n, err := model.ValidateAWSOwnedState(r.awsOwned, r.want)
	if err == nil {
		return false
	}
	what := fmt.Sprintf("aws-owned entry %d %s", n, err)
	r.log.Error(what+"; nothing was read from Secrets Manager",
		slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.ConfigAWSOwned))
	r.ledger.problem(diag.New(diag.ConfigAWSOwned, diag.Subject{Setting: config.AWSOwned}).
		WithSummary(what + "; nothing was read from Secrets Manager"))
	return true
}

// unfillable refuses a plan whose creates lack a listed key that nothing
// fills (plan.Unfillable: no generate, or no place for the key): the
// configuration is invalid for this commit (SPEC §13), nothing is written.
func (r *runner) unfillable(p plan.Plan) bool {
	names := plan.Unfillable(p, r.policy.Rules)
	if len(names) == 0 {
		return false
	}
	attrs := []any{slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.ConfigAWSOwned),
		slog.Int(vocab.FieldCount, len(names))}
	if r.showNames {
		attrs = append(attrs, slog.String(vocab.FieldResource, strings.Join(names, ",")))
	}
	r.log.Error("a new secret lacks a key aws-owned lists and generate is not given; nothing was written", attrs...)
	r.ledger.problem(diag.New(diag.ConfigAWSOwned, diag.Subject{Setting: config.AWSOwned}).
		WithSummary(plural(len(names), "new secret lacks", "new secrets lack") + " a key aws-owned lists, with no generate to fill it; nothing was written"))
	return true
}

// oversized refuses a plan that would write a value larger than the
// target stores once the keys owned by AWS are in it (plan.Oversized: a
// create's generated keys at their configured length, an update's or
// adoption's merge): gate:value-too-large, one per secret, its subject
// the document (its resource label unless names are shown), status
// invalid, exit 3, nothing written. Before this gate such a create went
// out without the key it could not fit (createValue's fallback), ended
// exit 6 and left the new secret conflict aws-owned-missing for good.
func (r *runner) oversized(p plan.Plan) bool {
	ops := plan.Oversized(p, r.policy.Rules)
	if len(ops) == 0 {
		return false
	}
	limit := r.policy.MaxValueBytes
	for _, op := range ops {
		what := "generated at their configured length"
		if op.Action != vocab.ActionCreate {
			what = "as AWS holds them, merged"
		}
		subject := diag.Document(op.Desired.Ordinal, op.Desired.Path, r.showNames)
		summary := fmt.Sprintf("with the keys aws-owned lists (%s), the value the %s would store is larger than %d bytes, the most the target stores; nothing was changed",
			what, op.Action, limit)
		r.ledger.problem(diag.New(diag.GateValueTooLarge, subject).WithSummary(summary))
		r.log.Error(summary, slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.GateValueTooLarge),
			slog.String(vocab.FieldResource, r.label(op.Name)))
	}
	return true
}

// createValue is the value a create writes: the document's, with every
// key aws-owned lists that the document lacks filled with a generated value
// (Generator; canonical JSON). The value is made once per secret and run
// and reused by every attempt, so a resent CreateSecret carries the same
// value under its token. plan.Unfillable refused the plan when a key could
// not be filled; a failure here writes the document's value, which
// verification then reports (never a value in any record).
func (r *runner) createValue(op plan.Operation) []byte {
	e, ok := r.policy.AWSOwned[op.Name]
	if !ok || e.Whole() || e.Generate == 0 {
		return op.Desired.Value
	}
	if v, ok := r.generated.Load(op.Name); ok {
		return v.([]byte)
	}
	lack, err := keydiff.Lacking(op.Desired.Value, e.Keys)
	if err != nil || len(lack) == 0 {
		return op.Desired.Value
	}
	filled, err := keydiff.Fill(op.Desired.Value, lack, func(string) string { return r.gen.Generate(e.Generate) })
	if err == nil {
		filled, err = canonical.FromJSON(filled)
	}
	if err != nil {
		return op.Desired.Value
	}
	v, _ := r.generated.LoadOrStore(op.Name, filled)
	return v.([]byte)
}
