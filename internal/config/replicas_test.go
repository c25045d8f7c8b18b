package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestReplicaRegionsSetting: replica-regions from each source, parsed and
// sorted; unset means replicas are not managed (SPEC §12).
func TestReplicaRegionsSetting(t *testing.T) {
	o, err := Resolve(base())
	require.NoError(t, err)
	assert.Nil(t, o.Engine.Replicas, "not given: replicas are not managed")

	in := base()
	in.Flags[AWSRegion] = "us-east-1"
	in.Flags[ReplicaRegions] = "us-west-2,eu-west-1=alias/dr"
	o, err = Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, []model.Replica{{Region: "eu-west-1", KMSKeyID: "alias/dr"}, {Region: "us-west-2"}}, o.Engine.Replicas)

	in = base()
	in.Flags[ConfigFile] = "c.yaml"
	in.ReadFile = func(string) ([]byte, error) { return []byte("replica-regions: eu-west-1\n"), nil }
	o, err = Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, []model.Replica{{Region: "eu-west-1"}}, o.Engine.Replicas)
}

// TestReplicaRegionsRejectedWithoutEcho: every rule of replica-regions is
// checked before any AWS call, the setting named, the value never echoed.
func TestReplicaRegionsRejectedWithoutEcho(t *testing.T) {
	const canary = "canary-west-9"
	for name, tc := range map[string]struct{ region, raw string }{
		"not a Region":      {"", canary},
		"twice":             {"", "eu-west-1,eu-west-1"},
		"two partitions":    {"", "eu-west-1,cn-north-1"},
		"own Region":        {"eu-west-1", "eu-west-1"},
		"another partition": {"cn-north-1", "eu-west-1"},
		"bad key":           {"", "eu-west-1=" + canary},
	} {
		t.Run(name, func(t *testing.T) {
			in := base()
			if tc.region != "" {
				in.Flags[AWSRegion] = tc.region
			}
			in.Flags[ReplicaRegions] = tc.raw
			_, err := Resolve(in)
			ps := problems(t, err)
			require.Len(t, ps, 1)
			assert.Equal(t, ReplicaRegions, ps[0].Subject.Setting)
			assert.Equal(t, ClassInvalidValue, ps[0].Class)
			assert.NotContains(t, ps[0].Line(), canary)
		})
	}
}
