package emulator

import (
	"slices"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/kms"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/organizations"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/secretsmanager"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/ssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/sts"
)

// The services composed on the emulator's listener see it through
// core.Host (and a service's own additions to it): host is that view.

// SSMDefaultKMSAlias is the alias of the AWS managed key Parameter Store
// encrypts a SecureString with when PutParameter names no KeyId.
const SSMDefaultKMSAlias = ssm.DefaultKMSAlias

// SSMOperations returns the names of the served Parameter Store operations.
func SSMOperations() []string { return ssm.Operations() }

// jsonService is one awsJson1_1 service on the listener as the router and
// the faults ask it: what differs between Secrets Manager and Parameter
// Store here is data of this table, never a branch.
type jsonService struct {
	target        string // X-Amz-Target prefix of its operations
	iamPrefix     string // prefix of its IAM actions (Faults.Denied)
	internalError string // its internal-error code (Faults.ErrorRate)
	throttleError string // its code of a call over the quota (Faults.Quotas)
	// opPrefix qualifies its operation names in stats, faults and quotas
	// ("organizations:" for Organizations, whose TagResource and
	// ListTagsForResource share their names with the other services').
	opPrefix string
	serves   func(op string) bool
	mutating func(op string) bool // Faults.AmbiguousRate applies
	quotas   map[string]core.Quota
	handler  func(op string) handler // nil when op is not served
	// unmodelled is the service's advice for one of its operations it
	// does not serve ("" when it has none; nil: never any).
	unmodelled func(op string) string
}

var jsonServices = []jsonService{
	{
		target: secretsmanager.Target, iamPrefix: secretsmanager.IAMPrefix, internalError: "InternalServiceError",
		throttleError: "ThrottlingException",
		serves:        secretsmanager.Serves, mutating: secretsmanager.Mutating, quotas: secretsmanager.Quotas,
		unmodelled: secretsmanager.Unmodelled,
		handler: func(op string) handler {
			if h := secretsmanager.Handler(op); h != nil {
				return func(e *Emulator, p *part, body []byte) (any, *core.Error) { return h(e.smCall(p), body) }
			}
			return nil
		},
	},
	{
		target: ssm.Target, iamPrefix: ssm.IAMPrefix, internalError: "InternalServerError",
		throttleError: "ThrottlingException",
		serves:        ssm.Serves, mutating: ssm.Mutating, quotas: ssm.Quotas,
		handler: func(op string) handler {
			if h := ssm.Handler(op); h != nil {
				return func(e *Emulator, p *part, body []byte) (any, *core.Error) { return h(e.ssmCall(p), body) }
			}
			return nil
		},
	},
	{
		target: organizations.Target, iamPrefix: organizations.IAMPrefix, internalError: "ServiceException",
		throttleError: "TooManyRequestsException", opPrefix: organizations.OpPrefix,
		serves: organizations.Serves, mutating: organizations.Mutating, quotas: organizations.Quotas,
		handler: func(op string) handler {
			if h := organizations.Handler(op); h != nil {
				return func(e *Emulator, p *part, body []byte) (any, *core.Error) { return h(e.orgCall(p), body) }
			}
			return nil
		},
	},
}

// orgCall is Organizations' view of a request served in partition p: the
// organizations are the emulator's, the caller p's account.
func (e *Emulator) orgCall(p *part) *organizations.Call {
	return &organizations.Call{Host: host{e}, Caller: p.account, Store: e.orgs}
}

// CreateLag is how long an Organizations CreateAccount request stays
// IN_PROGRESS (Faults.OrgCreateAccountLagMS).
func (h host) CreateLag() time.Duration {
	return time.Duration(h.e.faults.OrgCreateAccountLagMS) * time.Millisecond
}

// ClosureLag is how long a closed account stays PENDING_CLOSURE
// (Faults.OrgCloseAccountLagMS).
func (h host) ClosureLag() time.Duration {
	return time.Duration(h.e.faults.OrgCloseAccountLagMS) * time.Millisecond
}

// Refuses reports whether STS refuses every role of account: an account
// of an organization that is not ACTIVE (SUSPENDED or PENDING_CLOSURE:
// AssumeRole answers AccessDenied, as AWS does for a suspended account), or
// one Faults.STSRefuseAccounts lists.
func (h host) Refuses(account string) bool {
	if st := h.e.orgs.Status(host{h.e}, account); st != "" && st != organizations.StatusActive {
		return true
	}
	return slices.Contains(h.e.faults.STSRefuseAccounts, account)
}

// Silent reports whether STS leaves unanswered the assumption of a role of
// account (Faults.STSSilentAccounts).
func (h host) Silent(account string) bool {
	return slices.Contains(h.e.faults.STSSilentAccounts, account)
}

// serviceOf is the service that serves operation op (the services'
// operation names are distinct), nil when none does.
func serviceOf(op string) *jsonService {
	for i := range jsonServices {
		if jsonServices[i].serves(op) {
			return &jsonServices[i]
		}
	}
	return nil
}

// host is the emulator as its services see it (core.Host,
// secretsmanager.Host, ssm.Host, sts.Host).
type host struct{ e *Emulator }

func (h host) Lock()                    { h.e.mu.Lock() }
func (h host) Unlock()                  { h.e.mu.Unlock() }
func (h host) Now() time.Time           { return h.e.now() }
func (h host) CountFault(kind string)   { h.e.stats.Faults[kind]++ }
func (h host) Keys() core.Keys          { return kmsKeys{h.e} }
func (h host) ParameterLimit() int      { return h.e.faults.SSMParameterLimit }
func (h host) DescribeWithoutARN() bool { return h.e.faults.SSMDescribeWithoutARN }

// ssmCall is Parameter Store's view of a request served in partition p.
func (e *Emulator) ssmCall(p *part) *ssm.Call {
	return &ssm.Call{Host: host{e}, Partition: core.Partition{Account: p.account, Region: p.region}, Params: p.ssm}
}

// kmsKeys is the emulator's KMS registry as core.Keys, under the
// emulator's fault configuration.
type kmsKeys struct{ e *Emulator }

func (k kmsKeys) Resolve(account, region, id string) (string, *core.Error) {
	return k.e.kms.Resolve(account, region, id)
}

func (k kmsKeys) State(account, region, id string) string {
	return k.e.kms.State(account, region, id, k.e.faults.KMSKeyFaults)
}

func (k kmsKeys) AliasARN(account, region, alias string) string {
	return kms.AliasARN(account, region, alias)
}

func (h host) Identify(key, token string) (core.Principal, *core.Error) {
	return h.e.identify(key, token)
}

// Roles are the IAM configuration's roles and, after them, the roles
// Organizations' CreateAccount made (each trusting its management
// account) that the configuration does not list.
func (h host) Roles() ([]sts.Role, bool) {
	org := h.e.orgs.Roles()
	if len(org) == 0 {
		return h.e.iam.Roles, h.e.iam.RequireRoles
	}
	roles := slices.Clone(h.e.iam.Roles)
	for _, r := range org {
		if !slices.ContainsFunc(roles, func(x sts.Role) bool { return x.ARN == r.ARN }) {
			roles = append(roles, sts.Role{ARN: r.ARN, Trust: []string{r.Trusted}})
		}
	}
	return roles, h.e.iam.RequireRoles
}
func (h host) Issued() *sts.Issued { return h.e.sessions }

// Scripted counts one request of the STS action for the faults' script
// and returns its scripted fault (emulator.Faults's Script), the lock
// held.
func (h host) Scripted(action string) sts.Scripted {
	e := h.e
	e.nth[action]++
	for _, s := range e.faults.Script {
		if s.Operation != action || s.Nth != e.nth[action] {
			continue
		}
		p, _ := parseScriptFault(s.Fault) // validated when set
		e.countFault(p)
		out := sts.Scripted{Fault: p.name()}
		switch p.kind {
		case faultHang:
			out.Hang = true
		case faultHold:
			out.Hold = e.release
		case faultError:
			out.Code, out.Message = p.err.Code, p.err.Message
		}
		return out
	}
	return sts.Scripted{}
}
func (h host) Hangs(action string) bool { return slices.Contains(h.e.faults.STSHang, action) }

func (h host) CountCall(action string, retry bool) {
	h.e.stats.Calls[action]++
	if retry {
		h.e.stats.Retries[action]++
	}
}

// RandUpper returns n characters of [A-Z0-9] from the seeded generator.
func (h host) RandUpper(n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[h.e.idRNG.IntN(len(chars))]
	}
	return string(b)
}

// Role is one IAM role the emulator's STS knows (see sts.Role).
type Role = sts.Role

// Session is one set of temporary credentials STS issued (see
// sts.Session); Sessions the answer of GET /_emulator/sessions.
type (
	Session  = sts.Session
	Sessions = sts.Sessions
)

// Sessions returns the temporary credentials issued so far.
func (e *Emulator) Sessions() Sessions {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions.Sessions()
}

// smCall is Secrets Manager's view of a request served in partition p.
func (e *Emulator) smCall(p *part) *secretsmanager.Call {
	return &secretsmanager.Call{Host: host{e}, Partition: core.Partition{Account: p.account, Region: p.region}, Secrets: p.st}
}

func (h host) ListLag() time.Duration {
	return time.Duration(h.e.faults.ListLagMS) * time.Millisecond
}

func (h host) ListScanLimit() int64 { return h.e.faults.ListScanLimit }

func (h host) ReplicationLag() time.Duration {
	return time.Duration(h.e.faults.ReplicationLagMS) * time.Millisecond
}

func (h host) ReplicaFailures() []ReplicaFailure { return h.e.faults.ReplicaFailures }

func (h host) SecretsIn(account, region string) *secretsmanager.Store {
	return h.e.partFor(account, region).st
}

func (h host) NewID() string     { return h.e.newVersionID() }
func (h host) ARNSuffix() string { return h.e.arnSuffix() }

// Operations returns the names of the served Secrets Manager operations.
func Operations() []string { return secretsmanager.Operations() }

// Secrets Manager's types under the emulator's names (see the package
// secretsmanager).
type (
	SecretDump        = secretsmanager.SecretDump
	ReplicaStatusDump = secretsmanager.ReplicaStatusDump
	VersionDump       = secretsmanager.VersionDump
	Conditions        = secretsmanager.Conditions
	Rotation          = secretsmanager.Rotation
	RotationStep      = secretsmanager.RotationStep
	ReplicaFailure    = secretsmanager.ReplicaFailure
)

// Rotation steps, in the order a rotation runs them (see
// secretsmanager.RotationCreate).
const (
	RotationCreate = secretsmanager.RotationCreate
	RotationSet    = secretsmanager.RotationSet
	RotationTest   = secretsmanager.RotationTest
	RotationFinish = secretsmanager.RotationFinish
)
