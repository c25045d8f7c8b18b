package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/policy"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// loadPolicy compiles plan --policy's policies with the run's context
// (policy.ContextOf: the scopes' settings as kinds, --policy-labels)
// before anything is read from Git or AWS: policies that cannot be used
// are gate:policy-unusable, logged, and the run stops (exit 3).
func loadPolicy(ctx context.Context, log *slog.Logger, o config.Options) (*policy.Set, diag.Diagnostics) {
	set, err := policy.Load(ctx, o.Run.Policy, policy.ContextOf(o.Scopes, o.Run.PolicyLabels))
	if err != nil {
		d := unusable(err)
		logPolicy(log, d)
		return nil, diag.Diagnostics{d}
	}
	return set, nil
}

// checkPolicy checks a plan that reached converged or drift with the
// policies: their input is the plan file as it is written for e (the
// redacted view: never a value), each denial one gate:policy-denied whose
// summary is the policy's message (policy.Denial: one printable line), a
// failed evaluation gate:policy-unusable. Either makes the ending invalid
// (exit 3) with its diagnostics in the plan file and the report's status;
// a plan the policies pass, or one that ended otherwise, is e unchanged.
func checkPolicy(ctx context.Context, log *slog.Logger, set *policy.Set, outs *outputs, e ending) ending {
	if set == nil || (e.status != vocab.StatusConverged && e.status != vocab.StatusDrift) {
		return e
	}
	input, err := planInput(outs, e)
	var denials []policy.Denial
	var more int
	if err == nil {
		denials, more, err = set.Check(ctx, input)
	}
	if err != nil {
		d := unusable(err)
		logPolicy(log, d)
		return e.failed(d)
	}
	if len(denials) == 0 {
		if log != nil {
			log.Info("policies passed", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, set.Files()))
		}
		return e
	}
	for _, dn := range denials {
		d := diag.New(diag.GatePolicyDenied, diag.Subject{}).WithSummary("policy " + dn.Rule + ": " + dn.Message)
		logPolicy(log, d)
		e = e.failed(d)
	}
	if more > 0 {
		d := diag.New(diag.GatePolicyDenied, diag.Subject{}).WithSummary(fmt.Sprintf("and %d more denials of the policies, not shown", more))
		logPolicy(log, d)
		e = e.failed(d)
	}
	return e
}

// planInput is the plan file of e decoded as JSON: what a policy reads as
// input, the same document Conftest reads from the file.
func planInput(outs *outputs, e ending) (map[string]any, error) {
	b, err := json.Marshal(outs.view(e))
	if err != nil {
		return nil, &policy.Error{Reason: "the plan cannot be given to the policies"}
	}
	var input map[string]any
	if err := json.Unmarshal(b, &input); err != nil {
		return nil, &policy.Error{Reason: "the plan cannot be given to the policies"}
	}
	return input, nil
}

// unusable is err of policy.Load or Check as gate:policy-unusable, its
// reason (the compiler's or evaluator's message about the policy files,
// never the input) as the summary.
func unusable(err error) diag.Diagnostic {
	d := diag.New(diag.GatePolicyUnusable, diag.Subject{Setting: config.Policy})
	var pe *policy.Error
	if errors.As(err, &pe) {
		d = d.WithSummary("the policies cannot be used: " + pe.Reason)
	}
	return d
}

func logPolicy(log *slog.Logger, d diag.Diagnostic) {
	if log != nil {
		log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid))}, d.Attrs()...)...)
	}
}
