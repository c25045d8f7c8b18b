package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestTargetSetting: target and parameter-tier from flags and the config
// file, their defaults; the target lives in one field (Desired.Target,
// read through Scope.Target) (SPEC §16).
func TestTargetSetting(t *testing.T) {
	o, err := Resolve(base())
	require.NoError(t, err)
	sc := o.Scopes[0]
	assert.Equal(t, model.TargetSecretsManager, sc.Desired.Target)
	assert.Equal(t, model.TargetSecretsManager, sc.Target())
	assert.Equal(t, model.TierStandard, sc.Desired.ParameterTier)

	in := base()
	in.Flags[Target] = string(model.TargetParameterStore)
	in.Flags[ParameterTier] = model.TierAdvanced
	o, err = Resolve(in)
	require.NoError(t, err)
	sc = o.Scopes[0]
	assert.Equal(t, model.TargetParameterStore, sc.Desired.Target)
	assert.Equal(t, model.TargetParameterStore, sc.Target())
	assert.Equal(t, model.TierAdvanced, sc.Desired.ParameterTier)
	assert.Equal(t, model.TierAdvanced, sc.AWS.ParameterTier)
	assert.Equal(t, model.TargetParameterStore, sc.Identity().Target, "the target is part of the scope's identity")

	o, err = Resolve(withFile("sync", "repository-id: r\nscopes:\n  - name: ps\n    secret-prefix: a\n    target: parameter-store\n  - name: sm\n    secret-prefix: a\n", nil))
	require.NoError(t, err)
	require.Len(t, o.Scopes, 2)
	assert.Equal(t, model.TargetParameterStore, o.Scopes[0].Target())
	assert.Equal(t, model.TargetSecretsManager, o.Scopes[1].Target())
	assert.NotEqual(t, o.Scopes[0].Identity().Digest(), o.Scopes[1].Identity().Digest())
}

// TestTargetRefusals: what a parameter-store scope cannot have is refused
// before any AWS call, the setting named (config:invalid-value, exit 3);
// the same settings are fine for secrets-manager.
func TestTargetRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		setting, raw string
		target       model.Target
	}{
		"unknown target":       {Target, "ssm", ""},
		"unknown tier":         {ParameterTier, "intelligent-tiering", model.TargetParameterStore},
		"replicas":             {ReplicaRegions, "eu-west-1", model.TargetParameterStore},
		"aws-owned":            {AWSOwned, `[{"secret":"db","keys":["/password"]}]`, model.TargetParameterStore},
		"description too long": {Description, strings.Repeat("d", 1025), model.TargetParameterStore},
	} {
		t.Run(name, func(t *testing.T) {
			in := base()
			in.Flags[AWSRegion] = "us-east-1"
			if tc.target != "" {
				in.Flags[Target] = string(tc.target)
			}
			in.Flags[tc.setting] = tc.raw
			_, err := Resolve(in)
			ps := problems(t, err)
			require.Len(t, ps, 1)
			assert.Equal(t, tc.setting, ps[0].Subject.Setting)
			assert.Equal(t, ClassInvalidValue, ps[0].Class)
			if tc.target == "" || tc.setting == ParameterTier {
				return
			}
			in.Flags[Target] = string(model.TargetSecretsManager)
			_, err = Resolve(in)
			assert.NoError(t, err, "secrets-manager takes it")
		})
	}
	// 1,024 characters is the edge.
	in := base()
	in.Flags[Target] = string(model.TargetParameterStore)
	in.Flags[Description] = strings.Repeat("é", 1024)
	_, err := Resolve(in)
	assert.NoError(t, err)
}

// TestRegression_ParameterStoreManagedKeyIsRefusedAsKMSKeyID: a
// parameter-store scope's kms-key-id alias/aws/ssm, the AWS managed key
// Parameter Store uses by default (SPEC §16), was refused
// config:invalid-value ("not a KMS key id ...") because the form check
// took only Secrets Manager's managed key under alias/aws/, and
// alias/aws/secretsmanager, which Parameter Store cannot use, passed.
// Each target takes its own service's managed key, by alias name or alias
// ARN, and refuses the other's (found by the chaos campaign's Parameter
// Store primary scenarios).
func TestRegression_ParameterStoreManagedKeyIsRefusedAsKMSKeyID(t *testing.T) {
	for _, tc := range []struct {
		target model.Target
		key    string
		ok     bool
	}{
		{model.TargetParameterStore, "alias/aws/ssm", true},
		{model.TargetParameterStore, "arn:aws:kms:us-east-1:123456789012:alias/aws/ssm", true},
		{model.TargetParameterStore, "alias/aws/secretsmanager", false},
		{model.TargetParameterStore, "arn:aws:kms:us-east-1:123456789012:alias/aws/secretsmanager", false},
		{model.TargetParameterStore, "alias/app", true},
		{model.TargetSecretsManager, "alias/aws/secretsmanager", true},
		{model.TargetSecretsManager, "alias/aws/ssm", false},
		{model.TargetSecretsManager, "arn:aws:kms:us-east-1:123456789012:alias/aws/ssm", false},
	} {
		t.Run(string(tc.target)+" "+tc.key, func(t *testing.T) {
			in := base()
			in.Flags[Target] = string(tc.target)
			in.Flags[KMSKeyID] = tc.key
			o, err := Resolve(in)
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, tc.key, o.Scopes[0].Engine.Metadata.KMSKeyID)
				return
			}
			ps := problems(t, err)
			require.Len(t, ps, 1)
			assert.Equal(t, KMSKeyID, ps[0].Subject.Setting)
			assert.Equal(t, ClassInvalidValue, ps[0].Class)
		})
	}
	// The same in a config file's scope, the target given beside it.
	o, err := Resolve(withFile("sync", "repository-id: r\nscopes:\n  - name: ps\n    secret-prefix: a\n    target: parameter-store\n    kms-key-id: alias/aws/ssm\n", nil))
	require.NoError(t, err)
	assert.Equal(t, "alias/aws/ssm", o.Scopes[0].Engine.Metadata.KMSKeyID)
}

// TestRefusalsFollowTheTargetTable: config refuses a setting for a target
// exactly when the target's row does (model.Target.Refuses: a capability
// its store lacks, so its port could not serve the setting), with the
// row's reason; every target whose store has the capability takes it.
func TestRefusalsFollowTheTargetTable(t *testing.T) {
	samples := map[string]string{ReplicaRegions: "eu-west-1", AWSOwned: `[{"secret":"db","keys":["/password"]}]`}
	for _, target := range model.Targets {
		for _, r := range target.Refusals() {
			require.Contains(t, samples, r.Setting, "a sample value of %s, which target %s refuses", r.Setting, target)
		}
	}
	for _, target := range model.Targets {
		for setting, raw := range samples {
			in := base()
			in.Flags[AWSRegion] = "us-east-1"
			in.Flags[Target] = string(target)
			in.Flags[setting] = raw
			_, err := Resolve(in)
			reason, refused := target.Refuses(setting)
			if !refused {
				assert.NoError(t, err, "target %s takes %s", target, setting)
				continue
			}
			ps := problems(t, err)
			require.Len(t, ps, 1, "target %s refuses %s", target, setting)
			assert.Equal(t, setting, ps[0].Subject.Setting)
			assert.Equal(t, ClassInvalidValue, ps[0].Class)
			assert.Contains(t, ps[0].Summary, reason)
		}
	}
}
