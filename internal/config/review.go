package config

import (
	"encoding/json"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// planShaping is the part of one scope's effective settings that shapes
// its plan (SPEC §14): what the plan compares, what it may write, what it
// refuses. A setting that only bounds or paces the run (concurrency,
// timeouts, retries, log and output settings), that says where the commit
// is (repository path, revision: the source tree is bound apart), or that
// can only make a run invalid (key services, the document size cap), is
// not in it. TestPlanSettingsCoverEveryField keeps the split explicit.
type planShaping struct {
	RepositoryID       string            `json:"repository_id"`
	SourceRoot         string            `json:"source_root"`
	SecretPrefix       string            `json:"secret_prefix"`
	Region             string            `json:"region"`
	RoleAccount        string            `json:"role_account"`
	Profile            string            `json:"profile"`
	RecoveryWindowDays int               `json:"recovery_window_days"`
	AllowEmpty         bool              `json:"allow_empty"`
	KMSKeyID           string            `json:"kms_key_id"`
	Description        string            `json:"description"`
	Tags               map[string]string `json:"tags"`
	MaxDeletions       *int              `json:"max_deletions"`
	Replicas           []model.Replica   `json:"replicas"`
	Adopt              []string          `json:"adopt"`
	AdoptRequireMatch  bool              `json:"adopt_require_match"`
	AWSOwned           []model.AWSOwned  `json:"aws_owned"`
	// Target and ParameterTier are written for a parameter-store scope
	// only (SPEC §16), so a Secrets Manager scope's bytes are the ones it
	// always had.
	Target        string `json:"target,omitempty"`
	ParameterTier string `json:"parameter_tier,omitempty"`
}

// PlanSettings returns the effective settings of the scope that shape its
// plan, as canonical bytes (JSON, map keys sorted): prefix, repository id
// and source root (the scope identity), Region, the role's account (plan
// assumes plan-role-arn and sync role-arn, of one account: config.chooseRole),
// profile, KMS key, description, tags, replicas, adopt, aws-owned, the target
// and parameter tier of a parameter-store scope, the windows and
// limits (recovery window, max deletions, allow-empty). Whether names are
// shown is not in it: a reviewed plan is compared as its own file shows
// names. Never written as such: the plan file holds a keyed
// digest of them (planview, settings_digest), so two plans made with
// different settings are told apart and no setting is shown (SPEC §14).
func (s Scope) PlanSettings() []byte {
	e, d, a := s.Engine, s.Desired, s.AWS
	shape := planShaping{
		RepositoryID: d.RepositoryID, SourceRoot: d.SourceRoot, SecretPrefix: d.SecretPrefix,
		Region: a.Region, RoleAccount: model.RoleARNAccount(a.RoleARN), Profile: a.Profile,
		RecoveryWindowDays: e.RecoveryWindowDays, AllowEmpty: e.AllowEmpty,
		KMSKeyID: e.Metadata.KMSKeyID, Description: e.Metadata.Description, Tags: e.Metadata.Tags,
		MaxDeletions: e.MaxDeletions, Replicas: e.Replicas, Adopt: e.Adopt, AdoptRequireMatch: e.AdoptRequireMatch,
		AWSOwned: e.AWSOwned,
	}
	if t := s.Target(); !t.IsDefault() {
		// The default target's settings digest is the one it had before
		// targets existed; another's names its target and tier.
		shape.Target, shape.ParameterTier = string(t), d.ParameterTier
	}
	b, err := json.Marshal(shape)
	if err != nil {
		panic("config: plan settings do not encode: " + err.Error()) // plain data: cannot happen
	}
	return b
}
