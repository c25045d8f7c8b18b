package policy

import (
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// DataKey is where the run's Context is under data: data.sops_aws_sync.
const DataKey = "sops_aws_sync"

// The kinds of a scope's KMS key (ScopeContext.KMSKey), judged from the
// kms-key-id setting's form alone (no call to KMS): not given (the
// setting is not managed: AWS keeps what each secret has, at creation the
// target's AWS managed key), an AWS managed key (alias/aws/…, by alias or
// alias ARN: only AWS names aliases so), or a customer managed key (a
// key id, key ARN or another alias).
const (
	KMSKeyNotManaged      = "not-managed"
	KMSKeyAWSManaged      = "aws-managed"
	KMSKeyCustomerManaged = "customer-managed"
)

// Context is what a policy may need that the plan file does not say:
// each scope's settings as kinds (never a key id, an account or a
// value), and the labels of the change under review.
type Context struct {
	// Scopes are keyed by scope name.
	Scopes map[string]ScopeContext
	// Labels are the change's labels (plan --policy-labels: the pull or
	// merge request's), sorted as given.
	Labels []string
}

// ScopeContext is one scope's settings as a policy reads them.
type ScopeContext struct {
	// Target is the scope's target (secrets-manager, parameter-store).
	Target model.Target
	// ParameterTier is parameter-tier for a Parameter Store scope
	// (standard, advanced), "" for another target.
	ParameterTier string
	// ParameterType is the type the tool writes a parameter as
	// (SecureString: always, SPEC §16), "" for another target.
	ParameterType string
	// KMSKey is the kind of the scope's kms-key-id: KMSKeyNotManaged,
	// KMSKeyAWSManaged or KMSKeyCustomerManaged.
	KMSKey string
}

// ContextOf is the Context of a run's scopes and labels.
func ContextOf(scopes []config.Scope, labels []string) Context {
	c := Context{Scopes: map[string]ScopeContext{}, Labels: append([]string{}, labels...)}
	for _, s := range scopes {
		t := s.Target()
		sc := ScopeContext{Target: t, KMSKey: KMSKindOf(s.Engine.Metadata.KMSKeyID)}
		if t.HasTiers() {
			sc.ParameterTier, sc.ParameterType = s.Engine.ParameterTier, "SecureString"
			if sc.ParameterTier == "" {
				sc.ParameterTier = model.TierStandard
			}
		}
		c.Scopes[s.Name] = sc
	}
	return c
}

// KMSKindOf is the kind of a kms-key-id value ("" = not managed).
func KMSKindOf(id string) string {
	switch {
	case id == "":
		return KMSKeyNotManaged
	case strings.HasPrefix(id, "alias/aws/") || strings.Contains(id, ":alias/aws/"):
		return KMSKeyAWSManaged
	default:
		return KMSKeyCustomerManaged
	}
}

// Data is c as data.sops_aws_sync holds it: {"scopes": {NAME: {"target",
// "parameter_tier", "parameter_type", "kms_key"}}, "labels": [...]}.
func (c Context) Data() map[string]any {
	scopes := map[string]any{}
	for name, s := range c.Scopes {
		scopes[name] = map[string]any{"target": string(s.Target), "parameter_tier": s.ParameterTier,
			"parameter_type": s.ParameterType, "kms_key": s.KMSKey}
	}
	labels := make([]any, len(c.Labels))
	for i, l := range c.Labels {
		labels[i] = l
	}
	return map[string]any{"scopes": scopes, "labels": labels}
}
