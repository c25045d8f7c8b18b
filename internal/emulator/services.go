package emulator

import (
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/ssm"
)

// The services composed on the emulator's listener see it through
// core.Host (and a service's own additions to it): host is that view.

// SSMDefaultKMSAlias is the alias of the AWS managed key Parameter Store
// encrypts a SecureString with when PutParameter names no KeyId.
const SSMDefaultKMSAlias = ssm.DefaultKMSAlias

// SSMOperations returns the names of the served Parameter Store operations.
func SSMOperations() []string { return ssm.Operations() }

// host is the emulator as its services see it (core.Host, ssm.Host).
type host struct{ e *Emulator }

func (h host) Lock()                  { h.e.mu.Lock() }
func (h host) Unlock()                { h.e.mu.Unlock() }
func (h host) Now() time.Time         { return h.e.now() }
func (h host) CountFault(kind string) { h.e.stats.Faults[kind]++ }
func (h host) Keys() core.Keys        { return kmsKeys{h.e} }
func (h host) ParameterLimit() int    { return h.e.faults.SSMParameterLimit }

// ssmCall is Parameter Store's view of a request served in partition p.
func (e *Emulator) ssmCall(p *part) *ssm.Call {
	return ssm.NewCall(host{e}, p.account, p.region, p.ssm)
}

// kmsKeys is the emulator's KMS registry as core.Keys.
type kmsKeys struct{ e *Emulator }

// at is a call in (account, region) for the registry's lookups, which read
// only the pair.
func (k kmsKeys) at(account, region string) *call {
	return &call{Emulator: k.e, part: &part{account: account, region: region}}
}

func (k kmsKeys) Resolve(account, region, id string) (string, *core.Error) {
	return k.at(account, region).resolveKMS(id)
}

func (k kmsKeys) State(account, region, id string) string {
	return k.at(account, region).kmsState(id)
}

func (k kmsKeys) AliasARN(account, region, alias string) string {
	return k.at(account, region).kmsAliasARN(alias)
}
