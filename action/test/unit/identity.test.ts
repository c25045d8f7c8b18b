import { describe, expect, it } from 'vitest';
import { legacyDigest, scopeDigest, scopeIdentity } from '../../src/identity.js';
import { driftMarker, legacyDriftMarker } from '../../src/issue.js';
import { legacyPlanMarker, planMarker } from '../../src/plan.js';
import { identityOf, legacyMarkerOf, markerOf } from '../fixtures/identity.js';

/** The inputs scopeIdentity reads, for a run of prefix apps/prod in acme/infra without a config file. */
const inputs = (over: Partial<Parameters<typeof scopeIdentity>[0]> = {}) => ({
  repositoryId: 'acme/infra',
  sourceRoot: '',
  secretPrefix: 'apps/prod',
  awsRegion: '',
  awsAccountId: '',
  configFile: '',
  scopes: [] as string[],
  ...over,
});
const eu = { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-west-1' };
const us = { AWS_REGION: 'us-east-1', AWS_DEFAULT_REGION: 'us-east-1' };

describe('regression: one comment and one drift issue were shared between Regions and accounts', () => {
  it('two jobs of one prefix in two Regions (configure-aws-credentials sets AWS_REGION) keep two comments and two issues', () => {
    const a = scopeIdentity(inputs(), eu);
    const b = scopeIdentity(inputs(), us);
    expect(planMarker(a)).not.toBe(planMarker(b));
    expect(driftMarker(a)).not.toBe(driftMarker(b));
    // Both came from one marker before: the legacy one, which only knew the repository and prefix.
    expect(legacyPlanMarker(a)).toBe(legacyPlanMarker(b));
  });

  it('two jobs of one prefix and Region in two accounts or roles keep their own', () => {
    const base = scopeIdentity(inputs({ awsAccountId: '111111111111' }), eu);
    expect(planMarker(scopeIdentity(inputs({ awsAccountId: '222222222222' }), eu))).not.toBe(planMarker(base));
    expect(planMarker(scopeIdentity(inputs(), { ...eu, AWS_ROLE_ARN: 'arn:aws:iam::111111111111:role/a' }))).not.toBe(
      planMarker(scopeIdentity(inputs(), { ...eu, AWS_ROLE_ARN: 'arn:aws:iam::222222222222:role/a' })),
    );
    expect(planMarker(scopeIdentity(inputs(), { ...eu, AWS_PROFILE: 'prod' }))).not.toBe(planMarker(scopeIdentity(inputs(), { ...eu, AWS_PROFILE: 'staging' })));
  });
});

describe('scopeIdentity', () => {
  it('takes the Region from aws-region, else AWS_REGION, else AWS_DEFAULT_REGION', () => {
    expect(scopeIdentity(inputs({ awsRegion: 'ap-south-1' }), eu).region).toBe('ap-south-1');
    expect(scopeIdentity(inputs(), { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-east-1' }).region).toBe('eu-west-1');
    expect(scopeIdentity(inputs(), { AWS_DEFAULT_REGION: 'us-east-1' }).region).toBe('us-east-1');
    expect(scopeIdentity(inputs(), {}).region).toBe('');
  });

  it('reads the source root as the CLI does: empty is secrets without a config file, and left to the file with one', () => {
    expect(scopeIdentity(inputs(), eu).sourceRoot).toBe('secrets');
    expect(planMarker(scopeIdentity(inputs(), eu))).toBe(planMarker(scopeIdentity(inputs({ sourceRoot: 'secrets' }), eu)));
    expect(planMarker(scopeIdentity(inputs({ sourceRoot: 'other' }), eu))).not.toBe(planMarker(scopeIdentity(inputs(), eu)));
    expect(scopeIdentity(inputs({ configFile: 'scopes.yaml', secretPrefix: '' }), eu).sourceRoot).toBe('');
  });

  it('with a config file: one identity per file and subset of scopes, whatever their order', () => {
    const file = (scopes: string[], configFile = 'deploy/scopes.yaml') => planMarker(scopeIdentity(inputs({ configFile, secretPrefix: '', scopes }), eu));
    expect(file(['b', 'a'])).toBe(file(['a', 'b']));
    expect(file(['a'])).not.toBe(file([]));
    expect(file([], 'other.yaml')).not.toBe(file([]));
    expect(file([])).not.toBe(planMarker(scopeIdentity(inputs({ secretPrefix: '' }), eu)));
  });

  it('hashes the documented array (docs/github-action.md), so a value moved between fields changes it', () => {
    const id = scopeIdentity(inputs({ awsAccountId: '123456789012' }), { ...eu, AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/r', AWS_PROFILE: 'p' });
    expect(planMarker(id)).toBe(markerOf('plan', id));
    expect(driftMarker(id)).toBe(markerOf('drift', id));
    expect(scopeDigest(identityOf({ repositoryId: 'acme/infra/apps', secretPrefix: 'prod' }))).not.toBe(scopeDigest(identityOf()));
  });

  it('keeps the legacy digest of earlier releases, to find their comments and issues once', () => {
    expect(legacyPlanMarker(identityOf())).toBe(legacyMarkerOf('plan', 'acme/infra', 'apps/prod'));
    expect(legacyDriftMarker(identityOf())).toBe(legacyMarkerOf('drift', 'acme/infra', 'apps/prod'));
    const files = identityOf({ configFile: 'scopes.yaml', secretPrefix: '', scopes: ['us', 'eu'] });
    expect(legacyPlanMarker(files)).toBe(legacyMarkerOf('plan', 'acme/infra', '', { configFile: 'scopes.yaml', scopes: ['eu', 'us'] }));
    expect(legacyDigest(identityOf())).not.toBe(scopeDigest(identityOf()));
  });
});
