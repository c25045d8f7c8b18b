package desired

import (
	"fmt"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// The loader's rules for a scope whose target is parameter-store (SPEC
// §16), applied before any AWS call: the parameter name
// (model.ParameterName of the secret name) follows Parameter Store's name
// rule; a .sops.bin document has no place (a parameter value is text); and
// the value fits the configured tier.

// checkParameter applies the structural rules to a document named d.name:
// name:invalid for a name Parameter Store refuses, source:binary-for-target
// for a .sops.bin document. The diagnostic has no subject.
func checkParameter(d *document) *diag.Diagnostic {
	if err := model.ValidateParameterName(model.ParameterName(d.name)); err != nil {
		return problem(diag.NameInvalid, err.Error(), "rename the document (or change the secret prefix) so the parameter name follows Parameter Store's rule, or keep this scope on target secrets-manager")
	}
	if d.Suffix.Format.Kind().Binary() {
		return problem(diag.SourceBinaryForTarget, "", "")
	}
	return nil
}

// fitsTarget checks a canonical value of size bytes against the scope's
// tier (plaintext:too-large naming the tier that would fit, or Secrets
// Manager when none does); nil for any other target.
func fitsTarget(opts config.Desired, size int) *diag.Diagnostic {
	if opts.Target != model.TargetParameterStore {
		return nil
	}
	limit := model.TierLimit(opts.ParameterTier)
	if size <= limit {
		return nil
	}
	what := fmt.Sprintf("the value is larger than %d bytes, the limit of Parameter Store's %s tier (parameter-tier)", limit, opts.ParameterTier)
	next := "split the document into several smaller documents, or keep it in a scope with target secrets-manager (65,536 bytes)"
	if fit := model.TierThatFits(size); fit != "" {
		next = fmt.Sprintf("set parameter-tier: %s for this scope (%d bytes; AWS charges for advanced parameters), or split the document", fit, model.TierLimit(fit))
	}
	return problem(diag.PlaintextTooLarge, what, next)
}
