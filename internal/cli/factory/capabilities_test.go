package factory

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
)

// TestAdaptersHaveTheirRowsCapabilities: every target of the table has an
// adapter, and each adapter implements exactly the optional interfaces of
// its target's capabilities (model.Target.Capabilities): so the settings
// config refuses for a target (those of a capability its row lacks) are
// exactly those its port could not serve, and no adapter carries a method
// its target never calls.
func TestAdaptersHaveTheirRowsCapabilities(t *testing.T) {
	assert.Len(t, adapters, len(model.Targets), "one adapter per row of the target table")
	for _, target := range model.Targets {
		newPort, ok := adapters[target]
		require.True(t, ok, "target %s has no adapter", target)
		sc := config.Scope{Desired: config.Desired{Target: target, SecretPrefix: "app"}}
		port := newPort(aws.Config{Region: "eu-west-1"}, sc, pace.New(pace.SystemClock{}, pace.LimitsOf(target.Service())))
		assert.Equal(t, target.Capabilities(), engine.CapabilitiesOf(port), "target %s", target)
	}
}
