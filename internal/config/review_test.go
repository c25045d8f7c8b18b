package config

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestPlanSettingsCoverEveryField: every field of the options a scope
// carries is either in the digest of a reviewed plan's settings or listed
// here as not shaping the plan; a new field fails until it is classified
// (SPEC §14: a setting changed between review and sync must be seen).
func TestPlanSettingsCoverEveryField(t *testing.T) {
	shaping := map[string]bool{
		"Desired.RepositoryID": true, "Desired.SourceRoot": true, "Desired.SecretPrefix": true,
		"AWS.Region": true, "AWS.RoleARN": true, "AWS.Profile": true,
		"Engine.RecoveryWindowDays": true, "Engine.AllowEmpty": true, "Engine.Metadata": true,
		"Engine.MaxDeletions": true, "Engine.Replicas": true, "Engine.Adopt": true, "Engine.AdoptRequireMatch": true, "Engine.AWSOwned": true,
		"Desired.Target": true, "Desired.ParameterTier": true,
	}
	notShaping := map[string]bool{
		"Desired.RepoPath": true, "Desired.Revision": true, "Desired.MaxEncryptedBytes": true, "Desired.Concurrency": true,
		"Desired.ShowResourceNames": true, "Desired.KeyServiceTimeout": true, "Desired.KeyServices": true,
		"AWS.MaxAttempts": true, "AWS.MaxBackoff": true, "AWS.OperationTimeout": true, "AWS.Concurrency": true,
		"Engine.Concurrency": true, "Engine.VerificationTimeout": true, "Engine.ShowResourceNames": true,
		// Desired.AllowEmpty is the setting Engine.AllowEmpty binds (in
		// the digest); AllowTree is validate's; RoleSetting names where the
		// role came from; PlanRoleARN is plan's read-only role, which a
		// sync of the reviewed plan never uses (the account is RoleARN's).
		"Desired.AllowEmpty": true, "Desired.AllowTree": true, "AWS.RoleSetting": true, "AWS.PlanRoleARN": true,
		// Engine.ParameterTier and AWS.ParameterTier are bound by the
		// setting Desired.ParameterTier binds (in the digest).
		"Engine.ParameterTier": true, "AWS.ParameterTier": true,
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(Desired{}), reflect.TypeOf(AWS{}), reflect.TypeOf(Engine{})} {
		for i := range typ.NumField() {
			name := typ.Name() + "." + typ.Field(i).Name
			assert.True(t, shaping[name] || notShaping[name], "%s is not classified: add it to Scope.PlanSettings or to notShaping here", name)
		}
	}
	// Each shaping setting changes the bytes.
	base := Scope{Name: "a", Desired: Desired{RepositoryID: "o/r", SourceRoot: ".", SecretPrefix: "app/"}}
	two := 2
	changes := map[string]func(*Scope){
		"RepositoryID": func(s *Scope) { s.Desired.RepositoryID = "o/x" },
		"SourceRoot":   func(s *Scope) { s.Desired.SourceRoot = "sub" },
		"SecretPrefix": func(s *Scope) { s.Desired.SecretPrefix = "b/" },
		"Region":       func(s *Scope) { s.AWS.Region = "eu-west-1" },
		"RoleARN":      func(s *Scope) { s.AWS.RoleARN = "arn:aws:iam::123456789012:role/x" },
		"Profile":      func(s *Scope) { s.AWS.Profile = "p" },
		"Window":       func(s *Scope) { s.Engine.RecoveryWindowDays = 9 },
		"AllowEmpty":   func(s *Scope) { s.Engine.AllowEmpty = true },
		"KMS":          func(s *Scope) { s.Engine.Metadata.KMSKeyID = "alias/x" },
		"Description":  func(s *Scope) { s.Engine.Metadata.Description = "d" },
		"Tags":         func(s *Scope) { s.Engine.Metadata.Tags = map[string]string{"k": "v"} },
		"MaxDeletions": func(s *Scope) { s.Engine.MaxDeletions = &two },
		"Replicas":     func(s *Scope) { s.Engine.Replicas = []model.Replica{{Region: "eu-west-2"}} },
		"Adopt":        func(s *Scope) { s.Engine.Adopt = []string{"app/x"} },
		"RequireMatch": func(s *Scope) { s.Engine.AdoptRequireMatch = true },
		"AWSOwned":     func(s *Scope) { s.Engine.AWSOwned = []model.AWSOwned{{}} },
		"Target":       func(s *Scope) { s.Desired.Target = model.TargetParameterStore },
	}
	for name, change := range changes {
		s := base
		change(&s)
		assert.NotEqual(t, base.PlanSettings(), s.PlanSettings(), "%s: changing it leaves the plan settings equal", name)
	}
	// The tier shapes a parameter-store scope's plan; a Secrets Manager
	// scope's bytes are the ones it had before the second target.
	std, adv := base, base
	std.Desired.Target, std.Desired.ParameterTier = model.TargetParameterStore, model.TierStandard
	adv.Desired.Target, adv.Desired.ParameterTier = model.TargetParameterStore, model.TierAdvanced
	assert.NotEqual(t, std.PlanSettings(), adv.PlanSettings(), "the parameter tier leaves the plan settings equal")
	sm := base
	sm.Desired.Target, sm.Desired.ParameterTier = model.TargetSecretsManager, model.TierStandard
	assert.Equal(t, base.PlanSettings(), sm.PlanSettings(), "a secrets-manager scope's plan settings changed with the second target")
	s := base
	s.Engine.Concurrency, s.AWS.OperationTimeout, s.Desired.Revision = 9, 5, "HEAD~1"
	assert.Equal(t, base.PlanSettings(), s.PlanSettings(), "a setting that does not shape the plan changed the plan settings")
}
