package factory

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/awsps"
	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
)

// NewPorts builds one port per scope, in the order given (SPEC §10):
//
//   - the base configuration comes once from the SDK's default chain
//     (config.LoadDefaultConfig with the run's profile and retry settings,
//     taken from the first scope: they are not per-scope), then each scope
//     gets its own Region (aws-region, else the chain's);
//   - a scope with a role (config.AWS.RoleARN: role-arn, or plan-role-arn
//     for a plan, as config.Resolve chose) calls AWS with its credentials: STS
//     AssumeRole from the base credentials (stscreds), session name
//     trail.SessionName(scope), in an aws.CredentialsCache that renews them for
//     the run; the role is assumed here, once per role for the whole run
//     (SPEC §17: the scopes that name one role, in any Region, share its
//     session, named after the first of them in config order), so that a
//     refused role stops the run before anything is read. The roles are
//     assumed at once, at most parallel at a time (--parallel-scopes; ≤ 0:
//     config.DefaultParallelScopes), each through the pace of STS in its
//     Region (pace.STSLimits: resent after a new turn while STS answers
//     Throttling, assumeRoles);
//   - a scope whose target is parameter-store (SPEC §16) gets the
//     Systems Manager adapter (awsps) with its own quota bucket (bucket)
//     and Parameter Store's pace ceilings; the others awssm;
//   - every client (Secrets Manager, Systems Manager, STS) carries the trail: the SDK
//     application id naming the tool and the CI run, the tool's version in
//     the User-Agent (Trail.apply);
//   - the quota bucket is (account, Region): the account of a role is the
//     one in its ARN; the account of the base credentials comes from one
//     STS GetCallerIdentity, made only when there is more than one scope
//     and some scope has no role (a single-scope run makes no STS call
//     unless it has a role). The ports of one bucket share one
//     *pace.Controller;
//   - two scopes of one bucket whose secret prefixes overlap
//     (model.PrefixesOverlap) are refused before any role is assumed. The
//     rule holds over configured, every scope of the configuration
//     (config.Options.Configured; nil = scopes), not only the ones --scope
//     selected: an overlapping configuration is invalid whichever subset
//     runs. A configured scope that is not run and has no Region (its own
//     or the chain's) is left out: no run of it can write anywhere. The
//     base account is looked up for that check only when it decides it (a
//     scope with a role and one without whose prefixes overlap).
//
// Errors are diag.Diagnostics, every problem found: aws:config (the shared
// config or profile cannot be loaded), aws:no-region, config:scope-overlap
// (one per configured scope involved, in configuration order, exit 3),
// credentials:caller-identity,
// credentials:assume-role (one per refused scope, subject the setting the
// scope's role came from, role-arn or plan-role-arn, exit 5). No diagnostic carries an ARN, an account id
// or the provider's text. Each STS call is bounded by --operation-timeout
// (the SDK's retries counted in); one that does not answer in time is its
// credentials:* diagnostic. When every problem is a credentials:assume-role
// of a scope whose account cannot be reached (Unreachable), the ports are
// returned beside the error: those scopes' with Unreachable set and no
// Port, every other scope's whole, so that the run may skip them under
// --max-unreachable-scopes (SPEC §17); otherwise the ports are nil. When
// ctx ends during an STS call the error is ctx's cause (the caller
// reports an interruption).
func NewPorts(ctx context.Context, trail Trail, scopes, configured []config.Scope, parallel int) ([]run.ScopePort, error) {
	if len(scopes) == 0 {
		return nil, nil
	}
	shared := scopes[0].AWS
	buckets := len(scopes) // an upper bound: the HTTP client is shared by every port
	idle := idleConnections(shared.Concurrency) * buckets
	base, err := loadBase(ctx, shared, idle)
	if err != nil {
		return nil, diag.Diagnostics{diag.New(diag.AWSConfig, diag.Subject{})}
	}
	trail.apply(&base)

	cfgs := make([]aws.Config, len(scopes))
	accounts := make([]string, len(scopes))
	var probs diag.Diagnostics
	needCaller := false
	for i, sc := range scopes {
		c := base.Copy()
		if sc.AWS.Region != "" {
			c.Region = sc.AWS.Region
		}
		if c.Region == "" {
			probs = append(probs, diag.New(diag.AWSNoRegion, settingOf(sc, config.AWSRegion)))
			continue
		}
		cfgs[i] = c
		if sc.AWS.RoleARN != "" {
			accounts[i] = model.RoleARNAccount(sc.AWS.RoleARN)
		} else if len(scopes) > 1 {
			needCaller = true
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}
	paces := stsPaces(cfgs)
	all := configuredWith(configured, scopes)
	var acct string // the base account; "" while not looked up
	if needCaller || mixedOverlap(all) {
		if acct, err = callerAccount(ctx, cfgs, scopes, paces); err != nil {
			return nil, err
		}
		for i, sc := range scopes {
			if sc.AWS.RoleARN == "" {
				accounts[i] = acct
			}
		}
	}

	out := make([]run.ScopePort, len(scopes))
	for i, sc := range scopes {
		out[i] = run.ScopePort{Name: sc.Name, Region: cfgs[i].Region, Bucket: bucket(sc, accounts[i], cfgs[i].Region)}
	}
	if probs = Overlaps(bucketsOf(all, base.Region, acct)); len(probs) > 0 {
		return nil, probs
	}

	sessions, err := assumeRoles(ctx, trail, cfgs, scopes, parallel, paces)
	if err != nil {
		return nil, err
	}
	onlyUnreachable := true
	for i, sc := range scopes {
		if sc.AWS.RoleARN == "" {
			continue
		}
		s := sessions[sc.AWS.RoleARN]
		if s.failed {
			probs = append(probs, diag.New(diag.CredentialsAssumeRole, settingOf(sc, roleSetting(sc.AWS))))
			out[i].Unreachable = s.unreachable
			onlyUnreachable = onlyUnreachable && s.unreachable
			continue
		}
		cfgs[i].Credentials = s.creds
	}
	if len(probs) > 0 && !onlyUnreachable {
		return nil, probs
	}

	pacers := map[string]*pace.Controller{}
	for i, sc := range scopes {
		if out[i].Unreachable {
			continue
		}
		t := sc.Target()
		p := pacers[out[i].Bucket]
		if p == nil {
			p = pace.New(pace.SystemClock{}, pace.LimitsOf(t.Service()))
			pacers[out[i].Bucket] = p
		}
		out[i].Port = adapters[t](cfgs[i], sc, p)
	}
	if len(probs) > 0 {
		return out, probs
	}
	return out, nil
}

// stsCodes are the STS error codes a converted error may carry
// (awscore.ConvertError; STS API reference, AssumeRole and
// GetCallerIdentity "Errors"); the pace reads only whether it is a
// throttle, the reachability of an account the SDK's error (Unreachable).
var stsCodes = awscore.Codes{Known: map[string]bool{
	"AccessDenied": true, "ExpiredTokenException": true, "MalformedPolicyDocument": true,
	"PackedPolicyTooLarge": true, "RegionDisabledException": true, "ValidationError": true,
}}

// stsPaces is one STS controller per Region of cfgs (pace.STSLimits): STS's
// request quota is per account and Region, and every STS call of a run is
// the base identity's, in the Region of the scope that makes it.
func stsPaces(cfgs []aws.Config) map[string]*pace.Controller {
	out := map[string]*pace.Controller{}
	for _, c := range cfgs {
		if out[c.Region] == nil {
			out[c.Region] = pace.New(pace.SystemClock{}, pace.STSLimits())
		}
	}
	return out
}

// stsCalls are the STS calls of one scope's configuration c: its
// --operation-timeout per attempt and the pace of STS in its Region.
func stsCalls(c aws.Config, sc config.Scope, paces map[string]*pace.Controller) awscore.Calls {
	return awscore.Calls{Timeout: sc.AWS.OperationTimeout, Pace: paces[c.Region], Codes: stsCodes}
}

// stsClient is the STS client of c whose retryer leaves throttles to the
// run's pace (awscore.NoThrottleRetry), as every adapter's does.
func stsClient(c aws.Config) *sts.Client {
	return sts.NewFromConfig(c, func(o *sts.Options) { o.Retryer = awscore.NoThrottleRetry(o.Retryer) })
}

// assumeRoles assumes every role scopes name, once per role (SPEC §17),
// with the configuration (base credentials, Region) of the first scope
// that names it in config order and a session named after that scope
// (trail.SessionName). The roles are assumed concurrently, at most
// parallel at a time (≤ 0: config.DefaultParallelScopes()), each
// AssumeRole waiting for a turn of its Region's STS pace and resent after
// a new turn while STS throttles (assumeRole). It returns each role's
// session by ARN, failed ones included; the only error is ctx's cause
// when ctx ends meanwhile.
func assumeRoles(ctx context.Context, trail Trail, cfgs []aws.Config, scopes []config.Scope, parallel int, paces map[string]*pace.Controller) (map[string]*session, error) {
	if parallel <= 0 {
		parallel = config.DefaultParallelScopes()
	}
	var first []int // the index of the first scope of each role
	out := map[string]*session{}
	for i, sc := range scopes {
		if r := sc.AWS.RoleARN; r != "" && out[r] == nil {
			out[r] = &session{}
			first = append(first, i)
		}
	}
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, i := range first {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		sc := scopes[i]
		s := out[sc.AWS.RoleARN]
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			creds, err := assumeRole(ctx, cfgs[i], sc, trail.SessionName(sc.Name), stsCalls(cfgs[i], sc, paces))
			s.creds, s.failed, s.unreachable = creds, err != nil, err != nil && Unreachable(err)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return out, nil
}

// session is the outcome of one role's AssumeRole in a run (NewPorts):
// its credentials, cached and renewed for every scope that names the role,
// or that it failed (and whether the account is unreachable).
type session struct {
	creds               aws.CredentialsProvider
	failed, unreachable bool
}

// Unreachable reports whether err, a failed AssumeRole of a scope's role,
// means the scope's account cannot be reached (SPEC §17), from typed
// facts only, never the provider's text: STS answered with the error code
// AccessDenied (STS API reference, AssumeRole: the trust policy does not
// admit the caller; AWS answers the same for a role of a suspended or
// closed account), or STS did not answer (the call's --operation-timeout
// passed, or the request could not be sent). Any other answer (a
// malformed request, an expired base token, throttling past the SDK's
// retries) is not about the account and is not unreachable.
func Unreachable(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode() == "AccessDenied"
	}
	var send *smithyhttp.RequestSendError
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &send)
}

// adapters are the ports of each target (model.Target): one adapter per
// row of the target table, over its service's client.
var adapters = map[model.Target]func(aws.Config, config.Scope, *pace.Controller) engine.Port{
	model.TargetSecretsManager: func(cfg aws.Config, sc config.Scope, p *pace.Controller) engine.Port {
		return awssm.New(secretsmanager.NewFromConfig(cfg), awssm.Options{OperationTimeout: sc.AWS.OperationTimeout, Pace: p})
	},
	model.TargetParameterStore: func(cfg aws.Config, sc config.Scope, p *pace.Controller) engine.Port {
		m := sc.Engine.Metadata
		return awsps.New(ssm.NewFromConfig(cfg), awsps.Options{OperationTimeout: sc.AWS.OperationTimeout, Pace: p,
			Prefix: sc.Desired.SecretPrefix, ScopeDigest: sc.Identity().Digest(), Tier: sc.AWS.ParameterTier,
			KMSKeyID: m.KMSKeyID, Description: m.Description})
	},
}

// bucket is a scope's quota bucket: (account, Region), and for a target
// whose quotas are its own (model.Target.OwnBucket: Parameter Store, SPEC
// §16) the same with "/" and the target, so its scopes pace apart from the
// other targets' and never overlap them (two services, two namespaces).
func bucket(sc config.Scope, account, region string) string {
	if t := sc.Target(); t.OwnBucket() {
		return account + "/" + region + "/" + string(t)
	}
	return account + "/" + region
}

// Overlaps is the overlap rule of SPEC §10 over scopes and their ports
// (same order): one config:scope-overlap diagnostic for every scope whose
// secret prefix overlaps (model.PrefixesOverlap) that of another scope
// writing in one of the same (account, Region)s: its own bucket, or a
// Region of its account that either scope's replica-regions lists (SPEC
// §12: a replica is written in that Region under the primary's name). Two
// such scopes would race in one run: one creates a name in that Region
// while the other's create replicates the same name there, which ends in
// replica-clash after the first has written. The same prefix in two
// buckets that no replica joins is fine.
func Overlaps(scopes []config.Scope, ports []run.ScopePort) diag.Diagnostics {
	var ds diag.Diagnostics
	for i, a := range scopes {
		for j, b := range scopes {
			if i != j && shareARegion(a, ports[i], b, ports[j]) && model.PrefixesOverlap(a.Desired.SecretPrefix, b.Desired.SecretPrefix) {
				ds = append(ds, diag.New(diag.ConfigScopeOverlap, settingOf(a, config.SecretPrefix)))
				break
			}
		}
	}
	return ds
}

// configuredWith is every scope the overlap rule covers: configured (the
// configuration's scopes, in its order) with each run scope in place of the
// configured one of its name, and a run scope configured lacks appended
// (options built by hand); scopes when configured is empty.
func configuredWith(configured, scopes []config.Scope) []config.Scope {
	if len(configured) == 0 {
		return scopes
	}
	all := slices.Clone(configured)
	for _, sc := range scopes {
		if j := slices.IndexFunc(all, func(c config.Scope) bool { return c.Name == sc.Name }); j >= 0 {
			all[j] = sc
		} else {
			all = append(all, sc)
		}
	}
	return all
}

// mixedOverlap reports whether two of scopes, one with a role and one
// without, have overlapping prefixes: only then does the overlap rule need
// the base account (two scopes without a role share it, two roles name
// theirs).
func mixedOverlap(scopes []config.Scope) bool {
	for _, a := range scopes {
		for _, b := range scopes {
			if a.AWS.RoleARN != "" && b.AWS.RoleARN == "" && model.PrefixesOverlap(a.Desired.SecretPrefix, b.Desired.SecretPrefix) {
				return true
			}
		}
	}
	return false
}

// bucketsOf returns the scopes that have a Region (their own, else the
// chain's region) and their ports' Regions and buckets for Overlaps: the
// account of a role is its ARN's, the others' acct (the base account, ""
// when it was not looked up: it is then the same for all of them).
func bucketsOf(scopes []config.Scope, region, acct string) ([]config.Scope, []run.ScopePort) {
	var with []config.Scope
	var ports []run.ScopePort
	for _, sc := range scopes {
		r, a := sc.AWS.Region, acct
		if r == "" {
			r = region
		}
		if r == "" {
			continue
		}
		if sc.AWS.RoleARN != "" {
			a = model.RoleARNAccount(sc.AWS.RoleARN)
		}
		with = append(with, sc)
		ports = append(ports, run.ScopePort{Name: sc.Name, Region: r, Bucket: bucket(sc, a, r)})
	}
	return with, ports
}

// shareARegion reports whether scopes a and b (with their ports) write in
// one (account, Region): the same bucket, or the same account (the
// bucket's part before "/") and a Region that is the scope's own or one of
// its replica Regions for both.
func shareARegion(a config.Scope, pa run.ScopePort, b config.Scope, pb run.ScopePort) bool {
	if pa.Bucket == pb.Bucket {
		return true
	}
	if a.Target() != b.Target() {
		return false // two services: the same name in each is two resources
	}
	accountA, _, okA := strings.Cut(pa.Bucket, "/")
	accountB, _, okB := strings.Cut(pb.Bucket, "/")
	if !okA || !okB || accountA != accountB {
		return false
	}
	regions := func(sc config.Scope, p run.ScopePort) []string {
		out := []string{p.Region}
		for _, r := range sc.Engine.Replicas {
			out = append(out, r.Region)
		}
		return out
	}
	rb := regions(b, pb)
	for _, r := range regions(a, pa) {
		if slices.Contains(rb, r) {
			return true
		}
	}
	return false
}

// roleSetting is the setting a scope's role came from (config.AWS.RoleSetting:
// plan-role-arn for a plan that has one), role-arn for options built by hand.
func roleSetting(a config.AWS) string {
	if a.RoleSetting == "" {
		return config.RoleARN
	}
	return a.RoleSetting
}

// settingOf is the subject naming setting key of scope sc where it came
// from (config.Scope.SettingSubject): the config-file key
// scopes.<name>.<key> of a listed scope (or the flag or variable of a
// one-off override of it), else the default scope's flag, variable or key.
func settingOf(sc config.Scope, key string) diag.Subject {
	return sc.SettingSubject(key)
}

// loadBase loads the SDK's default chain with the run's profile, retry
// settings and an HTTP client keeping idle connections per host.
func loadBase(ctx context.Context, o config.AWS, idle int) (aws.Config, error) {
	client := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConnsPerHost = idle
		t.MaxIdleConns = max(t.MaxIdleConns, idle)
	})
	return awsconfig.LoadDefaultConfig(ctx, loadOptions(o, client)...)
}

// callerAccount is the account of the base credentials: one STS
// GetCallerIdentity, in the Region of the first scope without a role,
// through that Region's STS pace (resent after a new turn while
// throttled), each attempt bounded like every other AWS call by the run's
// --operation-timeout (the SDK's retries inside it): an STS that never
// answers is credentials:caller-identity, exit 5, within that bound, not a
// hang until --run-timeout.
func callerAccount(ctx context.Context, cfgs []aws.Config, scopes []config.Scope, paces map[string]*pace.Controller) (string, error) {
	c, sc := cfgs[0], scopes[0]
	for i, s := range scopes {
		if s.AWS.RoleARN == "" {
			c, sc = cfgs[i], s
			break
		}
	}
	sc.AWS.OperationTimeout = scopes[0].AWS.OperationTimeout
	client := stsClient(c)
	var out *sts.GetCallerIdentityOutput
	err := stsCalls(c, sc, paces).Read(ctx, pace.Reads, "GetCallerIdentity", func(call context.Context) (err error) {
		out, err = client.GetCallerIdentity(call, &sts.GetCallerIdentityInput{})
		return err
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return "", context.Cause(ctx)
	case err != nil || out.Account == nil || len(*out.Account) != 12:
		return "", diag.Diagnostics{diag.New(diag.CredentialsCallerIdentity, diag.Subject{})}
	}
	return *out.Account, nil
}

// assumeRole returns the credentials of sc's role: STS AssumeRole with the
// base credentials of c (in the scope's Region), session name session,
// cached and renewed by the SDK. The first AssumeRole is made here
// through calls (retrieve: paced, resent while throttled, each attempt
// within the scope's --operation-timeout, SDK retries included), and its
// credentials are the cache's first; each renewal later in the run is
// one more retrieve, bounded as a whole by the same timeout (boundedRole).
// The error is the SDK's (Unreachable reads it) or ctx's.
func assumeRole(ctx context.Context, c aws.Config, sc config.Scope, session string, calls awscore.Calls) (aws.CredentialsProvider, error) {
	p := stscreds.NewAssumeRoleProvider(stsClient(c), sc.AWS.RoleARN, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = session
	})
	creds, err := retrieve(ctx, calls, p)
	if err != nil {
		return nil, err
	}
	return aws.NewCredentialsCache(&boundedRole{inner: p, calls: calls, first: &creds}), nil
}

// retrieve is one AssumeRole of p through calls (awscore.Calls.Read):
// each attempt waits for a turn of STS's pace, a Throttling answer cuts
// the pace and is resent after a new turn, any other answer ends it. The
// error is the last attempt's as the SDK returned it (not converted: the
// reachability rule reads its code), or ctx's when ctx ends.
func retrieve(ctx context.Context, calls awscore.Calls, p aws.CredentialsProvider) (aws.Credentials, error) {
	var creds aws.Credentials
	var last error
	err := calls.Read(ctx, pace.Reads, "AssumeRole", func(call context.Context) error {
		creds, last = p.Retrieve(call)
		return last
	})
	switch {
	case err == nil:
		return creds, nil
	case ctx.Err() != nil || last == nil:
		return aws.Credentials{}, err
	}
	return aws.Credentials{}, last
}

// boundedRole is a role's provider as aws.CredentialsCache calls it: the
// first Retrieve returns the credentials the set-up already has (no second
// AssumeRole), every later one (a renewal) is one retrieve through calls
// (paced, resent while throttled), bounded as a whole by calls.Timeout.
// The bound must be here: the cache hands its provider a context stripped
// of the caller's deadline and cancellation (it only stops waiting), so
// without it an STS that never answers, or throttles without end, would
// hold a renewal open for the rest of the run.
type boundedRole struct {
	inner aws.CredentialsProvider
	calls awscore.Calls
	mu    sync.Mutex
	first *aws.Credentials // nil once handed out
}

// Retrieve implements aws.CredentialsProvider.
func (b *boundedRole) Retrieve(ctx context.Context) (aws.Credentials, error) {
	b.mu.Lock()
	first := b.first
	b.first = nil
	b.mu.Unlock()
	if first != nil {
		return *first, nil
	}
	call, cancel := bounded(ctx, b.calls.Timeout)
	defer cancel()
	return retrieve(call, b.calls, b.inner)
}

var _ aws.CredentialsProvider = (*boundedRole)(nil)

// bounded is ctx with the deadline of one AWS call, d from now
// (--operation-timeout, > 0 once resolved); ctx itself when d is 0
// (options built by hand without it).
func bounded(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// OfflineRegions is the Region of each of scopes (same order) as validate
// judges it without AWS (SPEC §15): its aws-region, else the Region of the
// SDK's default chain (environment and shared config files, read without a
// network call), as NewPorts would give its port; "" when neither names
// one (the chain's configuration cannot be loaded, or holds no Region).
func OfflineRegions(ctx context.Context, scopes []config.Scope) []string {
	out := make([]string, len(scopes))
	chain, loaded := "", false
	for i, sc := range scopes {
		if sc.AWS.Region != "" {
			out[i] = sc.AWS.Region
			continue
		}
		if !loaded {
			loaded = true
			if base, err := loadBase(ctx, scopes[0].AWS, 1); err == nil {
				chain = base.Region
			}
		}
		out[i] = chain
	}
	return out
}

// OfflineOverlaps is the overlap rule of SPEC §10 as validate judges it
// without AWS (SPEC §15): over configured (every scope of the
// configuration, in its order), the Region of a scope is its aws-region,
// else the Region of the SDK's default chain (environment and shared
// config files, read without a network call); the account of a scope
// with role-arn is its ARN's, and every scope without one shares the
// base identity's. A scope whose prefix overlaps another's
// (model.PrefixesOverlap) in one (account, Region) as Overlaps decides it
// is config:scope-overlap (subject its secret-prefix setting). A pair
// that could write in one Region but whose accounts are not known to be
// the same or different (one scope has role-arn, the other the base
// identity, whose account only STS can tell) or whose Region is unknown
// is warning:overlap-not-judged for each scope of it that has no
// overlap error. Fewer than two scopes: nil.
func OfflineOverlaps(ctx context.Context, configured []config.Scope) diag.Diagnostics {
	if len(configured) < 2 {
		return nil
	}
	chain := ""
	if base, err := loadBase(ctx, configured[0].AWS, 1); err == nil {
		chain = base.Region
	}
	ports := make([]run.ScopePort, len(configured))
	for i, sc := range configured {
		r := sc.AWS.Region
		if r == "" {
			r = chain
		}
		acct := "base"
		if sc.AWS.RoleARN != "" {
			acct = "role:" + model.RoleARNAccount(sc.AWS.RoleARN)
		}
		ports[i] = run.ScopePort{Name: sc.Name, Region: r, Bucket: bucket(sc, acct, r)}
	}
	overlap := make([]bool, len(configured))
	unjudged := make([]bool, len(configured))
	for i, a := range configured {
		for j, b := range configured {
			if i == j || !model.PrefixesOverlap(a.Desired.SecretPrefix, b.Desired.SecretPrefix) {
				continue
			}
			if ports[i].Region == "" || ports[j].Region == "" {
				unjudged[i] = true
				continue
			}
			if (a.AWS.RoleARN == "") != (b.AWS.RoleARN == "") {
				// Only the Regions can be compared: the same account
				// assumed, a shared Region is possible, not certain.
				pa, pb := ports[i], ports[j]
				pa.Bucket, pb.Bucket = "any/"+pa.Region, "any/"+pb.Region
				if shareARegion(a, pa, b, pb) {
					unjudged[i] = true
				}
				continue
			}
			if shareARegion(a, ports[i], b, ports[j]) {
				overlap[i] = true
			}
		}
	}
	var ds diag.Diagnostics
	for i, sc := range configured {
		switch {
		case overlap[i]:
			ds = append(ds, diag.New(diag.ConfigScopeOverlap, settingOf(sc, config.SecretPrefix)))
		case unjudged[i]:
			ds = append(ds, diag.New(diag.WarningOverlapNotJudged, settingOf(sc, config.SecretPrefix)))
		}
	}
	return ds
}
