package factory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awsps"
	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const (
	acctProd    = "111111111111"
	acctStaging = "222222222222"
	acctDenied  = "333333333333"
	roleProd    = "arn:aws:iam::" + acctProd + ":role/secrets-sync"
	roleStaging = "arn:aws:iam::" + acctStaging + ":role/ci/secrets-sync"
	roleDenied  = "arn:aws:iam::" + acctDenied + ":role/secrets-sync"
)

// stsEmulator is an emulator whose STS knows the three roles (prod and
// staging trust the base account, denied refuses everyone), with the SDK
// chain pointed at it for Secrets Manager and STS.
func stsEmulator(t *testing.T, opts ...emulator.Option) *emulatortest.Server {
	srv := emulatortest.Start(t, opts...)
	awsEnv(t, srv.URL)
	t.Setenv("AWS_ENDPOINT_URL_STS", srv.URL)
	srv.Control().Must(t).SetIAM(emulator.IAM{RequireRoles: true, Roles: []emulator.Role{
		{ARN: roleProd, Trust: []string{emulator.DefaultAccountID}},
		{ARN: roleStaging, Trust: []string{"*"}},
		{ARN: roleDenied, Trust: []string{"*"}, Deny: true},
	}})
	return srv
}

// scope is a listed scope of the run with the run's AWS settings.
func scope(name, prefix, region, role string) config.Scope {
	return config.Scope{Name: name, Listed: true,
		Desired: config.Desired{RepositoryID: "acme/payments", SourceRoot: "secrets", SecretPrefix: prefix},
		AWS:     config.AWS{Region: region, RoleARN: role, Concurrency: 4, OperationTimeout: 0}}
}

func pacer(t *testing.T, p engine.Port) any {
	t.Helper()
	pp, ok := p.(engine.Paced)
	require.True(t, ok, "the port paces its calls")
	return pp.Pace()
}

// Each scope's calls go with its own credentials: a role's to the role's
// account (in the scope's Region), the others' to the base account; the
// ports of one (account, Region) share one pace; the base account costs one
// GetCallerIdentity, each role one AssumeRole with the session name of its
// first scope.
func TestNewPorts_ScopesCallWithTheirRolesAndShareBuckets(t *testing.T) {
	srv := stsEmulator(t)
	scopes := []config.Scope{
		scope("prod-a", "prod/a", "eu-west-1", roleProd),
		scope("prod-b", "prod/b", "eu-west-1", roleProd),
		scope("staging", "staging/payments", "eu-central-1", roleStaging),
		scope("dev", "prod/a", "eu-west-1", ""), // prod-a's prefix, but another account
	}
	ports, err := NewPorts(context.Background(), Trail{}, scopes, nil, 0)
	require.NoError(t, err)
	require.Len(t, ports, 4)
	for i, p := range ports {
		assert.Equal(t, scopes[i].Name, p.Name)
		assert.Equal(t, scopes[i].AWS.Region, p.Region)
	}
	assert.Equal(t, ports[0].Bucket, ports[1].Bucket, "one role, one Region: one bucket")
	assert.NotEqual(t, ports[0].Bucket, ports[2].Bucket)
	assert.NotEqual(t, ports[0].Bucket, ports[3].Bucket, "same Region, other account")
	assert.Same(t, pacer(t, ports[0].Port), pacer(t, ports[1].Port), "one bucket shares one pace")
	assert.NotSame(t, pacer(t, ports[0].Port), pacer(t, ports[2].Port))
	assert.NotSame(t, pacer(t, ports[0].Port), pacer(t, ports[3].Port))

	st := srv.Stats(t)
	assert.Equal(t, int64(1), st.Calls["GetCallerIdentity"], "one call for the base account")
	assert.Equal(t, int64(2), st.Calls["AssumeRole"], "each role assumed once, at set-up (prod-b shares prod-a's session)")
	sessions := srv.Control().Must(t).Sessions().Sessions
	require.Len(t, sessions, 2)
	// The roles are assumed at once: their issue order is not the config's.
	slices.SortFunc(sessions, func(a, b emulator.Session) int { return strings.Compare(a.RoleARN, b.RoleARN) })
	for i, want := range []struct{ role, name, acct string }{
		{roleProd, "sops-aws-sync-prod-a", acctProd}, {roleStaging, "sops-aws-sync-staging", acctStaging},
	} {
		assert.Equal(t, want.role, sessions[i].RoleARN)
		assert.Equal(t, want.name, sessions[i].SessionName)
		assert.Equal(t, want.acct, sessions[i].Account)
		assert.Equal(t, "AssumeRole", sessions[i].Action)
		assert.Contains(t, sessions[i].Caller, ":"+emulator.DefaultAccountID+":", "assumed with the base credentials")
	}

	for _, p := range ports {
		_, err := p.Port.ListCandidates(context.Background(), "")
		require.NoError(t, err, p.Name)
	}
	assert.Equal(t, map[string]map[string]int64{
		acctProd + "/eu-west-1":                  {"ListSecrets": 2},
		acctStaging + "/eu-central-1":            {"ListSecrets": 1},
		emulator.DefaultAccountID + "/eu-west-1": {"ListSecrets": 1},
	}, srv.Stats(t).CallsByAccountRegion, "assumed credentials map to the role's account")
	assert.Equal(t, int64(2), srv.Stats(t).Calls["AssumeRole"], "the credentials are cached for the run")
}

// A single-scope run makes no STS call without a role (today's call
// counts), and one AssumeRole with one.
func TestNewPorts_SingleScopeCallsSTSOnlyForItsRole(t *testing.T) {
	srv := stsEmulator(t)
	def := config.Scope{Name: model.DefaultScopeName, AWS: config.AWS{Region: "eu-west-1"}}
	ports, err := NewPorts(context.Background(), Trail{}, []config.Scope{def}, nil, 0)
	require.NoError(t, err)
	require.Len(t, ports, 1)
	st := srv.Stats(t)
	assert.Zero(t, st.Calls["GetCallerIdentity"]+st.Calls["AssumeRole"], "no STS call")

	def.AWS.RoleARN = roleStaging
	ports, err = NewPorts(context.Background(), Trail{}, []config.Scope{def}, nil, 0)
	require.NoError(t, err)
	st = srv.Stats(t)
	assert.Zero(t, st.Calls["GetCallerIdentity"])
	assert.Equal(t, int64(1), st.Calls["AssumeRole"])
	assert.Equal(t, "sops-aws-sync-default", srv.Control().Must(t).Sessions().Sessions[0].SessionName)
	_, err = ports[0].Port.ListCandidates(context.Background(), "")
	require.NoError(t, err)
	assert.Equal(t, int64(1), srv.Stats(t).CallsByAccountRegion[acctStaging+"/eu-west-1"]["ListSecrets"])
}

// setUpError returns NewPorts' diagnostics and checks that no line of them
// holds an account id, an ARN or STS's text.
func setUpError(t *testing.T, err error) diag.Diagnostics {
	t.Helper()
	var ds diag.Diagnostics
	require.True(t, errors.As(err, &ds), "diag.Diagnostics, got %T %v", err, err)
	text := err.Error() + strings.Join(ds.Lines(), "\n")
	for _, leak := range []string{acctProd, acctStaging, acctDenied, emulator.DefaultAccountID, "arn:aws", "AccessDenied", "not authorized", "127.0.0.1"} {
		assert.NotContains(t, text, leak)
	}
	return ds
}

// A role STS refuses stops the set-up of every scope: exit 5, one
// credentials:assume-role per refused scope naming its setting, never the
// ARN, its account or STS's message.
func TestNewPorts_DeniedRoleIsCredentialsAssumeRole(t *testing.T) {
	srv := stsEmulator(t)
	_, err := NewPorts(context.Background(), Trail{}, []config.Scope{
		scope("prod", "prod/payments", "eu-west-1", roleProd),
		scope("locked", "locked/payments", "eu-west-1", roleDenied),
		scope("unknown", "other/payments", "eu-west-1", "arn:aws:iam::444444444444:role/not-listed"),
	}, nil, 0)
	ds := setUpError(t, err)
	require.Len(t, ds, 2)
	for i, name := range []string{"locked", "unknown"} {
		assert.Equal(t, diag.CredentialsAssumeRole, ds[i].Class)
		assert.Equal(t, "config file key scopes."+name+".role-arn", ds[i].Subject.Name())
	}
	assert.Equal(t, vocab.ExitApply, ds.ExitCode())
	assert.Zero(t, srv.Stats(t).Calls["ListSecrets"], "nothing read")

	_, err = NewPorts(context.Background(), Trail{}, []config.Scope{{Name: model.DefaultScopeName, AWS: config.AWS{Region: "eu-west-1", RoleARN: roleDenied}}}, nil, 0)
	ds = setUpError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, "setting --role-arn", ds[0].Subject.Name(), "a single-scope run names the setting")
}

// Two scopes of one (account, Region) whose prefixes overlap at a "/" are
// refused before any role is assumed (exit 3); the same prefix in two
// Regions or two accounts is fine, and so is a prefix that only starts
// like another.
func TestNewPorts_OverlappingPrefixesInOneBucketAreRefused(t *testing.T) {
	srv := stsEmulator(t)
	_, err := NewPorts(context.Background(), Trail{}, []config.Scope{
		scope("app", "prod/app", "eu-west-1", roleProd),
		scope("apps", "prod/apps", "eu-west-1", roleProd),
		scope("app-eu", "prod/app/eu", "eu-west-1", roleProd),
	}, nil, 0)
	ds := setUpError(t, err)
	require.Len(t, ds, 2)
	assert.Equal(t, diag.ConfigScopeOverlap, ds[0].Class)
	assert.Equal(t, "config file key scopes.app.secret-prefix", ds[0].Subject.Name())
	assert.Equal(t, "config file key scopes.app-eu.secret-prefix", ds[1].Subject.Name())
	assert.Equal(t, vocab.ExitInvalid, ds.ExitCode())
	assert.Zero(t, srv.Stats(t).Calls["AssumeRole"], "refused before any role is assumed")

	ports, err := NewPorts(context.Background(), Trail{}, []config.Scope{
		scope("eu", "prod/app", "eu-west-1", roleProd),
		scope("us", "prod/app", "us-east-1", roleProd),
		scope("staging", "prod/app", "eu-west-1", roleStaging),
		scope("base", "prod/app", "eu-west-1", ""),
	}, nil, 0)
	require.NoError(t, err)
	assert.Len(t, ports, 4)
	assert.Empty(t, Overlaps([]config.Scope{scope("a", "prod/app", "", ""), scope("b", "/prod/app", "", "")}, []run.ScopePort{{Bucket: "x"}, {Bucket: "x"}}))
}

// The base account is needed to group scopes without a role; when STS does
// not answer, the run stops (exit 5) without reading anything.
func TestNewPorts_CallerIdentityFailureStopsTheRun(t *testing.T) {
	srv := stsEmulator(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	t.Setenv("AWS_ENDPOINT_URL_STS", closed)
	a, b := scope("a", "a", "eu-west-1", ""), scope("b", "b", "eu-west-1", "")
	a.AWS.MaxAttempts = 1
	_, err = NewPorts(context.Background(), Trail{}, []config.Scope{a, b}, nil, 0)
	ds := setUpError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, diag.CredentialsCallerIdentity, ds[0].Class)
	assert.Equal(t, vocab.ExitApply, ds.ExitCode())
	assert.Zero(t, srv.Stats(t).Calls["ListSecrets"])
}

func TestNewPorts_NoRegionNamesTheScope(t *testing.T) {
	stsEmulator(t)
	t.Setenv("AWS_REGION", "")
	_, err := NewPorts(context.Background(), Trail{}, []config.Scope{scope("a", "a", "eu-west-1", ""), scope("b", "b", "", "")}, nil, 0)
	ds := setUpError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, diag.AWSNoRegion, ds[0].Class)
	assert.Equal(t, "config file key scopes.b.aws-region", ds[0].Subject.Name())
}

// TestRegression_ReplicaRegionOfAnotherScopesBucket: a scope that
// replicates into the Region of another scope of the same account, with an
// overlapping prefix, passed the overlap rule (different buckets). Both
// planned a create of one name; in the parallel apply the scope in the
// replica Region created it first and the other's create then hit
// replica-clash: one scope applied, the other ended conflict, and the
// clash stayed. Such scopes write in one (account, Region) and are refused
// before any role is assumed; other accounts, and Regions no replica
// joins, stay fine.
func TestRegression_ReplicaRegionOfAnotherScopesBucket(t *testing.T) {
	withReplicas := func(sc config.Scope, regions ...string) config.Scope {
		for _, r := range regions {
			sc.Engine.Replicas = append(sc.Engine.Replicas, model.Replica{Region: r})
		}
		return sc
	}
	srv := stsEmulator(t)
	for _, tc := range []struct {
		name   string
		scopes []config.Scope
	}{
		{"into the other's Region", []config.Scope{
			withReplicas(scope("primary", "prod/app", "eu-west-1", roleProd), "eu-central-1"),
			scope("second", "prod/app", "eu-central-1", roleProd)}},
		{"both into one Region", []config.Scope{
			withReplicas(scope("west", "prod/app", "eu-west-1", roleProd), "us-east-1"),
			withReplicas(scope("central", "prod/app/eu", "eu-central-1", roleProd), "us-east-1")}},
	} {
		_, err := NewPorts(context.Background(), Trail{}, tc.scopes, nil, 0)
		ds := setUpError(t, err)
		require.Len(t, ds, 2, tc.name)
		for i, d := range ds {
			assert.Equal(t, diag.ConfigScopeOverlap, d.Class, tc.name)
			assert.Equal(t, "config file key scopes."+tc.scopes[i].Name+".secret-prefix", d.Subject.Name(), tc.name)
		}
	}
	assert.Zero(t, srv.Stats(t).Calls["AssumeRole"], "refused before any role is assumed")

	ports, err := NewPorts(context.Background(), Trail{}, []config.Scope{
		withReplicas(scope("primary", "prod/app", "eu-west-1", roleProd), "eu-central-1"),
		scope("other-account", "prod/app", "eu-central-1", roleStaging),
		scope("no-replica-here", "prod/app", "us-east-1", roleProd),
		scope("other-prefix", "prod/api", "eu-central-1", roleProd),
	}, nil, 0)
	require.NoError(t, err)
	assert.Len(t, ports, 4)
}

// TestRegression_ScopeSelectionNarrowedTheOverlapRule: with --scope, the
// overlap rule was applied only to the selected scopes, so a configuration
// whose scopes overlap ran whenever the subset run held one of the pair or
// none of it. It holds over every configured scope: such a configuration is
// refused (exit 3, every configured scope involved named) before any role
// is assumed, whichever scopes run. A scope without a role beside one with
// a role costs one GetCallerIdentity only when their prefixes overlap.
func TestRegression_ScopeSelectionNarrowedTheOverlapRule(t *testing.T) {
	srv := stsEmulator(t)
	configured := []config.Scope{
		scope("app", "prod/app", "eu-west-1", roleProd),
		scope("other", "other/app", "eu-west-1", roleProd),
		scope("app-eu", "prod/app/eu", "eu-west-1", roleProd),
	}
	for _, run := range [][]config.Scope{configured[1:2], configured[:1], configured} {
		_, err := NewPorts(context.Background(), Trail{}, run, configured, 0)
		ds := setUpError(t, err)
		require.Len(t, ds, 2, run[0].Name)
		assert.Equal(t, diag.ConfigScopeOverlap, ds[0].Class)
		assert.Equal(t, "config file key scopes.app.secret-prefix", ds[0].Subject.Name())
		assert.Equal(t, "config file key scopes.app-eu.secret-prefix", ds[1].Subject.Name())
		assert.Equal(t, vocab.ExitInvalid, ds.ExitCode())
	}
	assert.Empty(t, srv.Stats(t).Calls, "no AWS call: every account is a role's")

	// A role of the base account beside a scope without a role: one
	// GetCallerIdentity tells that they share the account.
	base := scope("base", "legacy/app", "eu-west-1", "")
	same := scope("same", "legacy", "eu-west-1", "arn:aws:iam::"+emulator.DefaultAccountID+":role/not-assumed")
	_, err := NewPorts(context.Background(), Trail{}, []config.Scope{base}, []config.Scope{base, same}, 0)
	ds := setUpError(t, err)
	require.Len(t, ds, 2)
	assert.Equal(t, "config file key scopes.same.secret-prefix", ds[1].Subject.Name())
	assert.EqualValues(t, 1, srv.Stats(t).Calls["GetCallerIdentity"])
	assert.Zero(t, srv.Stats(t).Calls["AssumeRole"])

	// Not overlapping: another account, another Region, another prefix.
	configured = []config.Scope{
		scope("app", "prod/app", "eu-west-1", roleProd),
		scope("staging", "prod/app", "eu-west-1", roleStaging),
		scope("us", "prod/app", "us-east-1", roleProd),
		scope("base", "base/app", "eu-west-1", ""),
	}
	ports, err := NewPorts(context.Background(), Trail{}, configured[:1], configured, 0)
	require.NoError(t, err)
	require.Len(t, ports, 1)
	assert.Equal(t, "app", ports[0].Name)
	assert.EqualValues(t, 1, srv.Stats(t).Calls["GetCallerIdentity"], "no prefix of a scope with a role overlaps one without")
}

// TestRegression_STSThatNeverAnswersIsBoundedByTheOperationTimeout: every
// STS call of the set-up (GetCallerIdentity for the base account,
// AssumeRole for a role) is bounded by --operation-timeout with the SDK's
// retries inside it, like every other AWS call. Against an STS that never
// answers (the emulator's sts_hang fault) the set-up ends with the call's
// credentials:* diagnostic (exit 5), not with the run's own deadline (here
// the parent context's, long after): before the fix it hung until the
// parent context ended and returned its cause.
func TestRegression_STSThatNeverAnswersIsBoundedByTheOperationTimeout(t *testing.T) {
	srv := stsEmulator(t)
	for _, c := range []struct {
		action string
		scopes []config.Scope
		class  string
	}{
		{"GetCallerIdentity", []config.Scope{scope("a", "a", "eu-west-1", ""), scope("b", "b", "eu-west-1", "")}, diag.CredentialsCallerIdentity},
		{"AssumeRole", []config.Scope{scope("prod", "prod/payments", "eu-west-1", roleProd)}, diag.CredentialsAssumeRole},
	} {
		t.Run(c.action, func(t *testing.T) {
			srv.Control().Must(t).SetFaults(emulator.Faults{STSHang: []string{c.action}})
			for i := range c.scopes {
				c.scopes[i].AWS.OperationTimeout = 300 * time.Millisecond
			}
			run, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			stop := time.AfterFunc(2*time.Minute, func() { cancel(errors.New("the run's own deadline")) })
			defer stop.Stop()
			_, err := NewPorts(run, Trail{}, c.scopes, nil, 0)
			require.NoError(t, run.Err(), "the set-up ended by the run's deadline, not the call's")
			ds := setUpError(t, err)
			require.Len(t, ds, 1)
			assert.Equal(t, c.class, ds[0].Class)
			assert.Equal(t, vocab.ExitApply, ds.ExitCode())
			st := srv.Stats(t)
			assert.Positive(t, st.Calls[c.action], "the call reached STS")
			assert.Positive(t, st.Faults["sts-hang"])
			assert.Zero(t, st.Calls["ListSecrets"], "nothing read")
		})
	}
}

// A parameter-store scope gets the Systems Manager adapter with its own
// quota bucket and pace (Parameter Store's ceilings), never Secrets
// Manager's; the same prefix in the two services of one account and
// Region is two namespaces, not an overlap.
func TestNewPorts_ParameterStoreScopeHasItsOwnAdapterAndBucket(t *testing.T) {
	stsEmulator(t)
	ps := scope("params", "prod/a", "eu-west-1", roleProd)
	ps.Desired.Target = model.TargetParameterStore
	sm := scope("secrets", "prod/a", "eu-west-1", roleProd)
	sm.Desired.Target = model.TargetSecretsManager
	ports, err := NewPorts(context.Background(), Trail{}, []config.Scope{sm, ps}, nil, 0)
	require.NoError(t, err)
	require.Len(t, ports, 2)
	assert.IsType(t, &awssm.Adapter{}, ports[0].Port)
	assert.IsType(t, &awsps.Adapter{}, ports[1].Port)
	assert.NotEqual(t, ports[0].Bucket, ports[1].Bucket)
	assert.NotSame(t, pacer(t, ports[0].Port), pacer(t, ports[1].Port))
	assert.InDelta(t, pace.ParameterStoreWrites, ports[1].Port.(*awsps.Adapter).Pace().Limit(pace.Writes), 0.001)

	// Two parameter-store scopes with one prefix in one bucket overlap.
	ps2 := ps
	ps2.Name = "params-2"
	_, err = NewPorts(context.Background(), Trail{}, []config.Scope{ps, ps2}, nil, 0)
	var ds diag.Diagnostics
	require.ErrorAs(t, err, &ds)
	assert.Equal(t, diag.ConfigScopeOverlap, ds[0].Class)
}

// Scopes whose account cannot be reached (SPEC §17) come back marked
// beside the error when they are its only problem: a role STS refuses
// (AccessDenied) and an account whose STS never answers (bounded by the
// operation timeout) are Unreachable with no port, the reachable scope's
// port is whole, and the error still names each refused scope
// (credentials:assume-role), so that a run without
// --max-unreachable-scopes stops as before.
func TestNewPorts_UnreachableScopesComeBackMarkedBesideTheError(t *testing.T) {
	srv := stsEmulator(t)
	srv.Control().Must(t).SetFaults(emulator.Faults{STSSilentAccounts: []string{acctStaging}})
	scopes := []config.Scope{
		scope("prod", "prod/payments", "eu-west-1", roleProd),
		scope("locked", "locked/payments", "eu-west-1", roleDenied),
		scope("silent", "silent/payments", "eu-west-1", roleStaging),
	}
	for i := range scopes {
		scopes[i].AWS.OperationTimeout = 300 * time.Millisecond
	}
	ports, err := NewPorts(context.Background(), Trail{}, scopes, nil, 0)
	ds := setUpError(t, err)
	require.Len(t, ds, 2)
	assert.Equal(t, []string{diag.CredentialsAssumeRole, diag.CredentialsAssumeRole}, []string{ds[0].Class, ds[1].Class})
	require.Len(t, ports, 3)
	assert.False(t, ports[0].Unreachable)
	assert.NotNil(t, ports[0].Port)
	for _, p := range ports[1:] {
		assert.True(t, p.Unreachable, p.Name)
		assert.Nil(t, p.Port, p.Name)
	}
	assert.Positive(t, srv.Stats(t).Faults["sts-silent-account"])
	assert.Zero(t, srv.Stats(t).Calls["ListSecrets"], "nothing read")
}

// Unreachable decides from typed facts only: STS's error code
// AccessDenied, or no answer (the call's deadline, a request that could
// not be sent); any other code or failure is not about the account.
func TestUnreachable_FromTheErrorCodeOrNoAnswer(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"AccessDenied", &smithy.OperationError{ServiceID: "STS", OperationName: "AssumeRole", Err: &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized"}}, true},
		{"ValidationError", &smithy.OperationError{Err: &smithy.GenericAPIError{Code: "ValidationError"}}, false},
		{"ExpiredToken", &smithy.GenericAPIError{Code: "ExpiredToken"}, false},
		{"a message that mentions AccessDenied", &smithy.GenericAPIError{Code: "RegionDisabledException", Message: "AccessDenied"}, false},
		{"deadline", &smithy.OperationError{Err: fmt.Errorf("canceled: %w", context.DeadlineExceeded)}, true},
		{"not sent", &smithy.OperationError{Err: &smithyhttp.RequestSendError{Err: errors.New("connection refused")}}, true},
		{"other", errors.New("AccessDenied"), false},
	} {
		assert.Equal(t, c.want, Unreachable(c.err), c.name)
	}
}

// One AssumeRole per role per run (SPEC §17): three scopes of one role in
// three Regions and a fourth with another role make two AssumeRole calls
// (the emulator's call stats), the scopes of the shared role calling with
// one session named after the first of them; a refused role shared by two
// scopes is asked once and names both scopes.
func TestNewPorts_OneAssumeRolePerRolePerRun(t *testing.T) {
	srv := stsEmulator(t)
	ports, err := NewPorts(context.Background(), Trail{}, []config.Scope{
		scope("eu", "app", "eu-west-1", roleProd),
		scope("us", "app", "us-east-1", roleProd),
		scope("staging", "app", "eu-west-1", roleStaging),
		scope("ap", "app", "ap-southeast-2", roleProd),
	}, nil, 0)
	require.NoError(t, err)
	require.Len(t, ports, 4)
	assert.Equal(t, int64(2), srv.Stats(t).Calls["AssumeRole"])
	var names []string
	for _, s := range srv.Control().Must(t).Sessions().Sessions {
		names = append(names, s.SessionName)
	}
	assert.ElementsMatch(t, []string{"sops-aws-sync-eu", "sops-aws-sync-staging"}, names)

	_, err = NewPorts(context.Background(), Trail{}, []config.Scope{
		scope("a", "a", "eu-west-1", roleDenied),
		scope("b", "b", "us-east-1", roleDenied),
	}, nil, 0)
	ds := setUpError(t, err)
	require.Len(t, ds, 2)
	assert.Equal(t, "config file key scopes.b.role-arn", ds[1].Subject.Name())
	assert.Equal(t, int64(3), srv.Stats(t).Calls["AssumeRole"], "the refused role was asked once")
}

// answered is an emulator log handler that closes ch at the first call
// of op the emulator answered 200: a test waits on it instead of polling.
type answered struct {
	op   string
	ch   chan struct{}
	once sync.Once
}

func newAnswered(op string) *answered { return &answered{op: op, ch: make(chan struct{})} }

func (a *answered) Enabled(context.Context, slog.Level) bool { return true }
func (a *answered) WithAttrs([]slog.Attr) slog.Handler       { return a }
func (a *answered) WithGroup(string) slog.Handler            { return a }
func (a *answered) Handle(_ context.Context, r slog.Record) error {
	var op string
	var status int64
	r.Attrs(func(at slog.Attr) bool {
		switch at.Key {
		case "operation":
			op = at.Value.String()
		case "status":
			status = at.Value.Int64()
		}
		return true
	})
	if op == a.op && status == 200 {
		a.once.Do(func() { close(a.ch) })
	}
	return nil
}

// The roles of a run are assumed concurrently (SPEC §17, --parallel-scopes
// bounds them): with the first AssumeRole to reach STS held (the
// emulator's scripted hold), another role's AssumeRole arrives and is
// answered while it is held; once released, the set-up ends with both
// sessions, one AssumeRole per role. Assumed one after another, the
// second role would never be asked while the first is held (the set-up
// would end only with the test's context).
func TestNewPorts_RolesAreAssumedConcurrently(t *testing.T) {
	second := newAnswered("AssumeRole")
	srv := stsEmulator(t, emulator.WithLogger(slog.New(second)))
	srv.Control().Must(t).SetFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "AssumeRole", Nth: 1, Fault: "hold"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type result struct {
		ports []run.ScopePort
		err   error
	}
	done := make(chan result, 1)
	go func() {
		ports, err := NewPorts(ctx, Trail{}, []config.Scope{
			scope("prod", "prod/payments", "eu-west-1", roleProd),
			scope("staging", "staging/payments", "eu-west-1", roleStaging),
		}, nil, 2)
		done <- result{ports, err}
	}()
	select {
	case <-second.ch:
	case got := <-done:
		require.FailNowf(t, "not concurrent", "the set-up ended (%v) before a second role's AssumeRole was answered: the roles were not assumed at once", got.err)
	}
	srv.Control().Must(t).Release()
	got := <-done
	require.NoError(t, got.err)
	require.Len(t, got.ports, 2)
	for _, p := range got.ports {
		assert.NotNil(t, p.Port, p.Name)
	}
	st := srv.Stats(t)
	assert.Equal(t, int64(2), st.Calls["AssumeRole"], "one AssumeRole per role")
	assert.Equal(t, int64(1), st.Faults["hold"])
}

// STS throttling is paced and resent (SPEC §17): the first AssumeRoles
// and the GetCallerIdentity answered Throttling are resent by the run
// after a new turn of STS's pace (not by the SDK's retryer: no request
// is an SDK retry), and the set-up converges with one session per role.
func TestNewPorts_ThrottledSTSIsResentAndConverges(t *testing.T) {
	srv := stsEmulator(t)
	srv.Control().Must(t).SetFaults(emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "AssumeRole", Nth: 1, Fault: "error:Throttling"},
		{Operation: "AssumeRole", Nth: 2, Fault: "error:Throttling"},
		{Operation: "AssumeRole", Nth: 3, Fault: "error:Throttling"},
		{Operation: "GetCallerIdentity", Nth: 1, Fault: "error:Throttling"},
	}})
	ports, err := NewPorts(context.Background(), Trail{}, []config.Scope{
		scope("prod", "prod/payments", "eu-west-1", roleProd),
		scope("staging", "staging/payments", "eu-west-1", roleStaging),
		scope("dev", "dev/payments", "eu-west-1", ""),
	}, nil, 4)
	require.NoError(t, err)
	require.Len(t, ports, 3)
	for _, p := range ports {
		require.NotNil(t, p.Port, p.Name)
		_, err := p.Port.ListCandidates(context.Background(), "")
		require.NoError(t, err, p.Name)
	}
	st := srv.Stats(t)
	assert.Equal(t, int64(4), st.Faults["error:Throttling"])
	assert.Equal(t, int64(2+3), st.Calls["AssumeRole"], "two roles, three throttled answers resent")
	assert.Equal(t, int64(2), st.Calls["GetCallerIdentity"], "one throttled, resent once")
	assert.Zero(t, st.Retries["AssumeRole"]+st.Retries["GetCallerIdentity"], "the resends are the run's, after a turn of the pace, not the SDK's")
	assert.Len(t, srv.Control().Must(t).Sessions().Sessions, 2, "one session per role")
}

// At scale, the STS call counter is the number of distinct roles (SPEC
// §17): 60 scopes over 20 roles (3 Regions each) assumed 8 at a time make
// 20 AssumeRole calls, each session named after its role's first scope
// in config order.
func TestNewPorts_ManyScopesOneAssumeRolePerDistinctRole(t *testing.T) {
	srv := stsEmulator(t)
	var scopes []config.Scope
	want := map[string]string{} // role ARN → session name
	for _, region := range []string{"eu-west-1", "us-east-1", "ap-southeast-2"} {
		for i := range 20 {
			role := fmt.Sprintf("arn:aws:iam::%012d:role/secrets-sync", 500000000000+i)
			name := fmt.Sprintf("acct-%02d-%s", i, region)
			scopes = append(scopes, scope(name, "app", region, role))
			if want[role] == "" {
				want[role] = "sops-aws-sync-" + name
			}
		}
	}
	srv.Control().Must(t).SetIAM(emulator.IAM{}) // any role may be assumed
	ports, err := NewPorts(context.Background(), Trail{}, scopes, nil, 8)
	require.NoError(t, err)
	require.Len(t, ports, 60)
	assert.Equal(t, int64(20), srv.Stats(t).Calls["AssumeRole"])
	got := map[string]string{}
	for _, s := range srv.Control().Must(t).Sessions().Sessions {
		got[s.RoleARN] = s.SessionName
	}
	assert.Equal(t, want, got)
}
