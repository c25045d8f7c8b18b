package emulator

import (
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/organizations"
)

// Organizations' types under the emulator's names (see the package
// organizations): the answer of GET /_emulator/organizations is
// OrganizationsDump.
type (
	OrganizationDump = organizations.Dump
	OrgUnitDump      = organizations.UnitDump
	OrgAccountDump   = organizations.AccountDump
)

// OrganizationsDump is the answer of GET /_emulator/organizations: every
// organization in creation order, each with its OUs (creation order) and
// accounts (joined order, the management account first).
type OrganizationsDump struct {
	Organizations []OrganizationDump `json:"organizations"`
}

// AccountStatus is the body of POST /_emulator/organizations/account-status:
// the account (of some organization) and its new status, ACTIVE,
// PENDING_CLOSURE or SUSPENDED. It is how a rehearsal suspends an account
// as AWS would (an unpaid bill, a closure begun elsewhere) or reinstates
// it; STS refuses every role of an account that is not ACTIVE.
type AccountStatus struct {
	AccountID string `json:"account_id"`
	Status    string `json:"status"`
}

// Organizations returns the organizations (see OrganizationsDump).
func (e *Emulator) Organizations() OrganizationsDump {
	e.mu.Lock()
	defer e.mu.Unlock()
	return OrganizationsDump{Organizations: e.orgs.Dump(host{e})}
}

// SetAccountStatus sets an account's status at once (see AccountStatus).
// Errors: an account in no organization, a status not listed, the
// management account made anything but ACTIVE.
func (e *Emulator) SetAccountStatus(s AccountStatus) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.orgs.SetStatus(host{e}, s.AccountID, s.Status)
}

// OrganizationsOperations returns the names of the served Organizations
// operations (unqualified: the X-Amz-Target's operation).
func OrganizationsOperations() []string { return organizations.Operations() }
