package emulator

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/secretsmanager"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/ssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/sts"
)

// Accounts and Regions. AWS keeps one Secrets Manager per (account,
// Region): a secret, its ARN and the request quotas belong to one of them.
// The emulator does the same. A request's Region is the Region of its SigV4
// credential scope (Authorization: AWS4-HMAC-SHA256
// Credential=AKID/DATE/REGION/SERVICE/aws4_request, or X-Amz-Credential in a
// presigned URL; AWS Signature Version 4 documentation, "Credential scope"),
// its account the account of its access key: a key of the AccessKeys map,
// temporary credentials the emulator's STS issued, or else the default
// account. Signatures are not checked. A request without a credential
// scope (raw HTTP in tests) is served by the default account and Region, so
// a single-account, single-Region emulator behaves exactly as before.

// part is the state of one (account, Region): its secrets and its quota
// buckets. Callers hold Emulator.mu.
type part struct {
	account, region string
	st              *secretsmanager.Store
	ssm             *ssm.Store // its Parameter Store parameters
	buckets         map[string]*bucket
	calls           map[string]int64 // API calls served here, by operation
}

type partKey struct{ account, region string }

// partFor returns the partition of (account, region), creating it empty.
// e.mu is held.
func (e *Emulator) partFor(account, region string) *part {
	k := partKey{account, region}
	if p := e.parts[k]; p != nil {
		return p
	}
	p := &part{account: account, region: region, st: secretsmanager.NewStore(), ssm: ssm.NewStore(), buckets: map[string]*bucket{}, calls: map[string]int64{}}
	e.parts[k] = p
	e.partOrder = append(e.partOrder, p)
	return p
}

// resetParts drops every partition's secrets and buckets. e.mu is held.
func (e *Emulator) resetParts() {
	e.parts = map[partKey]*part{}
	e.partOrder = nil
	e.partFor(e.defAccount, e.defRegion)
}

// IAM is the emulator's identity configuration (GET and PUT
// /_emulator/iam, WithIAM): which account each access key belongs to, and
// which roles may be assumed through the emulator's STS.
type IAM struct {
	// AccessKeys maps an access key id to its account: a 12-digit account
	// id (the principal is then arn:aws:iam::<account>:user/emulator) or
	// the ARN of an IAM user or role (arn:aws:iam::<account>:user/<name>),
	// which GetCallerIdentity reports. Any other key belongs to the
	// default account.
	AccessKeys map[string]string `json:"access_keys,omitempty"`
	// Roles are the roles STS knows, with their trust rules (see Role).
	Roles []Role `json:"roles,omitempty"`
	// RequireRoles refuses (AccessDenied) the assumption of any role not
	// in Roles; by default an unlisted role may be assumed by anyone.
	RequireRoles bool `json:"require_roles,omitempty"`
}

// ValidateIAM reports the first invalid setting, in words fit for a 400.
func ValidateIAM(c IAM) error {
	keys := slices.Sorted(maps.Keys(c.AccessKeys))
	for _, k := range keys {
		v := c.AccessKeys[k]
		if len(k) < 16 || len(k) > 128 || strings.ContainsAny(k, "/, =") {
			return fmt.Errorf("access_keys: %q is not an access key id (16-128 characters, no '/', ',', '=' or space)", k)
		}
		if _, _, isARN := core.ParsePrincipalARN(v); !core.ValidAccount(v) && !isARN {
			return fmt.Errorf("access_keys[%q]: %q is neither a 12-digit account id nor an IAM user or role ARN", k, v)
		}
	}
	return sts.ValidateRoles(c.Roles)
}

func cloneIAM(c IAM) IAM {
	c.AccessKeys = maps.Clone(c.AccessKeys)
	c.Roles = slices.Clone(c.Roles)
	for i := range c.Roles {
		c.Roles[i].Trust = slices.Clone(c.Roles[i].Trust)
		c.Roles[i].WebIdentitySubjects = slices.Clone(c.Roles[i].WebIdentitySubjects)
	}
	return c
}

// WithIAM sets the identity configuration. It panics on an invalid one
// (see ValidateIAM), since that is a programming error.
func WithIAM(c IAM) Option {
	return func(e *Emulator) {
		if err := ValidateIAM(c); err != nil {
			panic("emulator.WithIAM: " + err.Error())
		}
		e.iam = cloneIAM(c)
	}
}

// SetIAM replaces the identity configuration. Secrets, sessions already
// issued and everything else stay.
func (e *Emulator) SetIAM(c IAM) error {
	if err := ValidateIAM(c); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.iam = cloneIAM(c)
	return nil
}

// IAM returns the identity configuration.
func (e *Emulator) IAM() IAM {
	e.mu.Lock()
	defer e.mu.Unlock()
	return cloneIAM(e.iam)
}

// longTermPrincipal is the principal of a long-term access key (mapped or
// not). e.mu is held.
func (e *Emulator) longTermPrincipal(key string) core.Principal {
	v, ok := e.iam.AccessKeys[key]
	if !ok {
		v = e.defAccount
	}
	if account, kind, ok := core.ParsePrincipalARN(v); ok {
		prefix := "AIDA"
		if kind == "role" {
			prefix = "AROA"
		}
		return core.Principal{Account: account, ARN: v, UserID: core.StableID(prefix, v)}
	}
	return core.Principal{Account: v, ARN: "arn:aws:iam::" + v + ":user/emulator", UserID: core.StableID("AIDA", v)}
}

// route picks the partition that serves an API request: the Region of its
// credential scope (the default Region without one) and the account of its
// access key. e.mu is held.
func (e *Emulator) route(r *http.Request) (*part, *core.Error) {
	sc, ok := core.ParseSigScope(r)
	if !ok {
		return e.partFor(e.defAccount, e.defRegion), nil
	}
	region := sc.Region
	if !core.ValidRegion(region) {
		region = e.defRegion
	}
	who, aerr := e.identify(sc.AccessKey, r.Header.Get("X-Amz-Security-Token"))
	if aerr != nil {
		return nil, aerr
	}
	return e.partFor(who.Account, region), nil
}

// identify returns the principal of an access key: the role session of
// temporary credentials the emulator's STS issued (refused once expired on
// the emulator clock, or with another session token), else a long-term
// key's. e.mu is held.
func (e *Emulator) identify(key, token string) (core.Principal, *core.Error) {
	if who, ok, err := e.sessions.Lookup(key, token, e.now()); ok {
		return who, err
	}
	return e.longTermPrincipal(key), nil
}
