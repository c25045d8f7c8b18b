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
