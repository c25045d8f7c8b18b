package factory

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	"github.com/aws/aws-sdk-go-v2/service/sts"

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
//
// With role (--organizations-role-arn), the client's credentials are that
// role's: one STS AssumeRole from the chain's credentials (session name
// sops-aws-sync-scopes), made here within timeout; a refusal or no answer
// is credentials:assume-role, naming no AWS text.
func NewOrganizations(ctx context.Context, trail Trail, role string, timeout time.Duration) (*organizations.Client, error) {
	base, err := loadBase(ctx, config.AWS{}, idleConnections(1))
	if err != nil {
		return nil, diag.Diagnostics{diag.New(diag.AWSConfig, diag.Subject{})}
	}
	trail.apply(&base)
	if base.Region == "" {
		base.Region = organizationsRegion
	}
	if role != "" {
		p := aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(base), role, func(o *stscreds.AssumeRoleOptions) {
			o.RoleSessionName = "sops-aws-sync-scopes"
		}))
		call, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if _, err := p.Retrieve(call); err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, diag.Diagnostics{diag.New(diag.CredentialsAssumeRole, diag.Subject{}).
				WithSummary("the read role (--organizations-role-arn) could not be assumed: STS refused it or did not answer")}
		}
		base.Credentials = p
	}
	return organizations.NewFromConfig(base, func(o *organizations.Options) {
		o.Retryer = awscore.NoThrottleRetry(o.Retryer)
	}), nil
}
