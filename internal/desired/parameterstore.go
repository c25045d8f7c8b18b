package desired

import (
	"fmt"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// The loader's rules of the scope's target (SPEC §16; model.Target's row),
// applied before any AWS call: the resource name follows the service's own
// name rule (Parameter Store's, over model.ParameterName of the secret
// name); a .sops.bin document has no place where values are text; and a
// value fits the configured tier of a target that has tiers.

// checkTarget applies the target's structural rules to a document named
// d.name: name:invalid for a name the service refuses,
// source:binary-for-target for a .sops.bin document where values are
// text. The diagnostic has no subject.
func checkTarget(t model.Target, d *document) *diag.Diagnostic {
	if err := t.CheckName(d.name); err != nil {
		return problem(diag.NameInvalid, err.Error(), "rename the document (or change the secret prefix) so the parameter name follows Parameter Store's rule, or keep this scope on target secrets-manager")
	}
	if d.Suffix.Format.Kind().Binary() && !t.StoresBinary() {
		return problem(diag.SourceBinaryForTarget, "", "")
	}
	return nil
}

// fitsTarget checks a canonical value of size bytes against the scope's
// tier (plaintext:too-large naming the tier that would fit, or Secrets
// Manager when none does); nil for a target without tiers (its one limit
// is the decryptor's).
func fitsTarget(opts config.Desired, size int) *diag.Diagnostic {
	if !opts.Target.HasTiers() {
		return nil
	}
	limit := opts.Target.ValueLimit(opts.ParameterTier)
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
