package factory

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/organizations"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// organizationsRegion is the Region an Organizations client signs in when
// the SDK chain knows none: the aws partition's Organizations endpoint is
// in us-east-1 (Organizations API reference, "Endpoints").
const organizationsRegion = "us-east-1"

// NewOrganizations returns the Organizations client of `scopes generate`
// (SPEC §17): the SDK's default chain, whose credentials are the read
// role's (the management account's, or a delegated administrator's), the
// run's trail in its User-Agent, and a retryer that leaves throttles to
// the caller's pace (awscore.NoThrottleRetry). An SDK configuration that
// cannot be loaded is aws:config.
func NewOrganizations(ctx context.Context, trail Trail) (*organizations.Client, error) {
	base, err := loadBase(ctx, config.AWS{}, idleConnections(1))
	if err != nil {
		return nil, diag.Diagnostics{diag.New(diag.AWSConfig, diag.Subject{})}
	}
	trail.apply(&base)
	if base.Region == "" {
		base.Region = organizationsRegion
	}
	return organizations.NewFromConfig(base, func(o *organizations.Options) {
		o.Retryer = awscore.NoThrottleRetry(o.Retryer)
	}), nil
}
